#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run one boot case in QEMU and decide it; report a whole matrix.

  bootcase.py run CASEFILE --kernel BZ --initrd CPIO --workdir DIR --log LOG
                  --parser DIR [--qemu BIN] [--accel ACCEL]
  bootcase.py skip CASEFILE --workdir DIR --reason TEXT
  bootcase.py report --junit FILE RESULT.json...

`run` boots the guest with the kernel console on ttyS0 (QEMU's stdout) and
the tests' KTAP on ttyS1 (a pipe chardev, so kernel messages never split a
KTAP line), the human monitor on a third pipe.  When the guest prints a line
that is a [hotplug "NAME"] marker of the case file, the case's monitor
commands are sent and the guest is answered on ttyS1 with "ok" or
"error: MESSAGE".  Both streams are merged, in arrival order, into LOG.

boot.timeout counts the CPU time QEMU uses, not the clock: on a busy host
(make test runs the unit tests beside make boot) a guest runs slower but
does the same work, and a spinning guest is killed after the same amount
of it.  A guest that is idle, waiting for something that never comes, is
killed once it has used less than IDLE_SHARE of the CPU for boot.timeout
seconds of the clock; and any guest at WALL_FACTOR times boot.timeout.

The case is then decided from: the KTAP of ttyS1 (and of the console, where
built-in KUnit suites report), parsed by the tree's kunit_parser; a scan of
the console for splats; the timeout; and the kernel's "reboot: Restarting system"
(the guest's /init ends with a reboot, which makes QEMU exit).
The verdict goes to DIR/result.json and, when it is not a pass, the reasons
with the first splat or the last 20 lines to stdout.  Exit status: 0 for a
verdict (any verdict), 2 for bad usage.

`report` prints one table row per case, writes JUnit XML and ends with
"N passed, N failed" (", N skipped" when any); exit 1 when any case failed.
"""

import argparse
import collections
import io
import json
import os
import re
import resource
import select
import shlex
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

# The QEMU of an idle guest (a halted CPU and 250 timer ticks a second
# under TCG) uses about 7 % of a host CPU; a guest sharing a core with two
# other jobs still gets a third, one busy half the time a sixth.  An idle
# guest that a busy host makes cost more than IDLE_SHARE is left to the
# clock: no guest outlives WALL_FACTOR times its timeout.
IDLE_SHARE = 0.1
WALL_FACTOR = 5

BASE_CMDLINE = 'console=ttyS0 panic=-1 rdinit=/init'
SHUTDOWN = 'reboot: Restarting system'
PANIC = 'Kernel panic - not syncing'

# The first line of a kernel splat.  Lockdep's reports start with
# "WARNING: possible ...", except the non-static key one.
SPLAT = re.compile(
	r'Oops|BUG:|kernel BUG at|WARNING:|Kernel panic|general protection fault'
	r'|KASAN|UBSAN|INFO: task \S+ blocked for more than|soft lockup'
	r'|hard LOCKUP|detected stalls? on CPU|self-detected stall|Call Trace:'
	r'|INFO: trying to register non-static key|inconsistent lock state'
	r'|possible (recursive|circular) locking')
SPLAT_END = re.compile(r'---\[ end ')
SPLAT_MAX = 40
TAIL = 20


def git_config(path):
	"""Return {key: [values]} of a git-config file (keys as git prints them)."""
	out = subprocess.run(['git', 'config', '-f', path, '--list', '-z'],
			     check=True, capture_output=True).stdout.decode()
	conf = {}
	for item in out.split('\0'):
		if not item:
			continue
		key, _, value = item.partition('\n')
		conf.setdefault(key, []).append(value)
	return conf


class Case:
	"""The settings of one ci/boot/ case file that the runner needs."""

	def __init__(self, path):
		self.path = path
		self.name = os.path.basename(path)
		conf = git_config(path)
		self.cmdline = ' '.join(conf.get('boot.cmdline', []))
		self.qemu = [a for v in conf.get('boot.qemu', []) for a in shlex.split(v)]
		self.timeout = int(conf.get('boot.timeout', ['30'])[-1])
		self.expect = conf.get('boot.expect', ['pass'])[-1]
		self.expect_log = conf.get('boot.expect-log', [])
		self.tests = conf.get('boot.tests', [])
		self.hotplug = {}
		for key, values in conf.items():
			m = re.fullmatch(r'hotplug\.(.+)\.marker', key)
			if m:
				cmds = conf.get(f'hotplug.{m.group(1)}.command', [])
				self.hotplug[values[-1].strip()] = cmds


class Monitor:
	"""QEMU's human monitor on a pipe chardev: one command at a time."""

	PROMPT = '(qemu) '

	def __init__(self, fd_in, fd_out):
		self.fd_in, self.fd_out = fd_in, fd_out
		self.buf = ''
		self.ready = False	# the first prompt was seen
		self.queue = []		# (marker, command) still to send
		self.current = None	# (marker, command, sent-at)
		self.errors = {}	# marker -> first error of its commands
		self.replies = []	# (marker, reply) to give the guest

	def feed(self, text):
		self.buf += re.sub(r'\x1b\[[0-9;]*[A-Za-z]', '', text)
		while self.PROMPT in self.buf:
			answer, _, self.buf = self.buf.partition(self.PROMPT)
			if not self.ready:
				self.ready = True
			elif self.current:
				self.done(answer)
		self.pump()

	def done(self, answer):
		marker, command, _ = self.current
		self.current = None
		lines = [l.strip() for l in answer.replace('\r', '').split('\n')]
		lines = [l for l in lines if l and l != command]
		err = next((l for l in lines if re.search(r'\berror\b', l, re.I)), None)
		if err and marker not in self.errors:
			self.errors[marker] = err
		log_line(f'qemu monitor: {command}' + (f' -> {err}' if err else ''))
		if not any(m == marker for m, _ in self.queue):
			err = self.errors.pop(marker, None)
			self.replies.append((marker, f'error: {err}' if err else 'ok'))

	def ask(self, marker, commands):
		self.queue += [(marker, c) for c in commands]
		self.pump()

	def pump(self):
		if not self.ready or self.current or not self.queue:
			return
		marker, command = self.queue.pop(0)
		self.current = (marker, command, time.monotonic())
		os.write(self.fd_in, (command + '\n').encode())

	def check_stuck(self, limit=10):
		if self.current and time.monotonic() - self.current[2] > limit:
			self.done(f'error: the monitor did not answer in {limit}s')


LOG = None
MERGED = []


def log_line(line):
	"""Append a line to the merged log (and keep it for the tail)."""
	MERGED.append(line)
	if LOG:
		LOG.write(line + '\n')
		LOG.flush()


class Lines:
	"""Split a byte stream into lines, dropping carriage returns."""

	def __init__(self):
		self.part = b''

	def feed(self, data):
		self.part += data
		*lines, self.part = self.part.split(b'\n')
		return [l.decode(errors='replace').replace('\r', '') for l in lines]

	def rest(self):
		rest, self.part = self.part, b''
		return [rest.decode(errors='replace').replace('\r', '')] if rest else []


def mkfifos(base):
	for end in ('in', 'out'):
		p = f'{base}.{end}'
		if os.path.exists(p):
			os.unlink(p)
		os.mkfifo(p, 0o600)
	return (os.open(f'{base}.in', os.O_RDWR | os.O_NONBLOCK),
		os.open(f'{base}.out', os.O_RDWR | os.O_NONBLOCK))


def cpu_seconds(pid):
	"""The CPU time process PID and its descendants (all their threads, and
	the children they waited for) have used so far: QEMU= may name a
	wrapper that runs QEMU as its child."""
	kids, ticks = {}, {}
	for d in os.listdir('/proc'):
		if not d.isdigit():
			continue
		try:
			# Bytes: a process name need not be ASCII.
			with open(f'/proc/{d}/stat', 'rb') as f:
				fields = f.read().rsplit(b')', 1)[1].split()
		except (OSError, IndexError):
			continue
		# ppid; utime, stime, cutime, cstime
		kids.setdefault(int(fields[1]), []).append(int(d))
		ticks[int(d)] = sum(int(x) for x in fields[11:15])
	total, todo = 0, [pid]
	while todo:
		p = todo.pop()
		total += ticks.get(p, 0)
		todo += kids.get(p, [])
	return total / os.sysconf('SC_CLK_TCK')


def run_qemu(case, args):
	"""Boot the guest; return (console lines, test lines, status, seconds,
	CPU seconds, why it timed out)."""
	work = args.workdir
	tests_in, tests_out = mkfifos(os.path.join(work, 'tests'))
	mon_in, mon_out = mkfifos(os.path.join(work, 'monitor'))
	cmdline = ' '.join(x for x in (BASE_CMDLINE, case.cmdline) if x)
	argv = [args.qemu, '-accel', args.accel, '-M', 'pc', '-m', '512M',
		'-smp', '1', '-nodefaults', '-no-user-config', '-display', 'none',
		'-no-reboot', '-kernel', args.kernel, '-initrd', args.initrd,
		'-append', cmdline, '-serial', 'stdio',
		'-chardev', f'pipe,id=tests,path={work}/tests',
		'-serial', 'chardev:tests',
		'-chardev', f'pipe,id=mon,path={work}/monitor',
		'-mon', 'chardev=mon,mode=readline'] + case.qemu
	with open(os.path.join(work, 'qemu.cmd'), 'w') as f:
		f.write(shlex.join(argv) + '\n')

	console, tests = [], []
	streams = {}
	start = time.monotonic()
	deadline = start + case.timeout * WALL_FACTOR
	# (time, CPU seconds): the last sample at least boot.timeout old, and
	# every one after it.
	samples = collections.deque()
	proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
				stdout=subprocess.PIPE, stderr=subprocess.PIPE,
				start_new_session=True)
	mon = Monitor(mon_in, mon_out)
	streams = {proc.stdout.fileno(): ('console', Lines()),
		   proc.stderr.fileno(): ('qemu', Lines()),
		   tests_out: ('tests', Lines()),
		   mon_out: ('monitor', None)}
	for fd in (proc.stdout.fileno(), proc.stderr.fileno()):
		os.set_blocking(fd, False)

	def take(kind, lines):
		for line in lines:
			if kind == 'console':
				console.append(line)
				log_line(line)
			elif kind == 'qemu':
				console.append(f'qemu: {line}')
				log_line(f'qemu: {line}')
			else:
				tests.append(line)
				log_line(line)
				cmds = case.hotplug.get(line.strip())
				if cmds is not None:
					mon.ask(line.strip(), cmds)

	def drain(wait):
		ready, _, _ = select.select(list(streams), [], [], wait)
		for fd in ready:
			kind, splitter = streams[fd]
			try:
				data = os.read(fd, 65536)
			except BlockingIOError:
				continue
			if not data:
				# stdout/stderr closed: QEMU is gone.
				del streams[fd]
				take(kind, splitter.rest())
				continue
			if kind == 'monitor':
				mon.feed(data.decode(errors='replace'))
			else:
				take(kind, splitter.feed(data))
		mon.check_stuck()
		while mon.replies:
			_, reply = mon.replies.pop(0)
			os.write(tests_in, (reply + '\n').encode())

	status, cpu, why = None, 0.0, None
	try:
		while True:
			now = time.monotonic()
			if proc.poll() is not None:
				# Read what QEMU wrote before it went away.
				for _ in range(50):
					before = len(console) + len(tests)
					drain(0.02)
					if len(console) + len(tests) == before and \
					   proc.stdout.fileno() not in streams:
						break
				status = proc.returncode
				break
			# A look at every process of the machine: twice a second.
			if not samples or now - samples[-1][0] >= 0.5:
				cpu = cpu_seconds(proc.pid)
				samples.append((now, cpu))
			while len(samples) > 1 and samples[1][0] <= now - case.timeout:
				samples.popleft()
			if cpu >= case.timeout:
				why = f'timed out after {case.timeout}s of CPU time'
			elif samples[0][0] <= now - case.timeout and \
			     cpu - samples[0][1] < IDLE_SHARE * case.timeout:
				why = (f'timed out: idle for {case.timeout}s '
				       f'({cpu:.1f}s of CPU time in all)')
			elif now >= deadline:
				why = (f'timed out after {case.timeout * WALL_FACTOR}s '
				       f'({cpu:.1f}s of CPU time)')
			if why:
				os.killpg(proc.pid, signal.SIGKILL)
				proc.wait()
				drain(0)
				status = 'timeout'
				break
			drain(min(0.1, deadline - now))
	finally:
		# Stopped from outside (make boot interrupted, or another runner
		# of a parallel make boot failed): QEMU, in a session of its own,
		# goes too.
		if proc.poll() is None:
			os.killpg(proc.pid, signal.SIGKILL)
			proc.wait()
	for _, (kind, splitter) in list(streams.items()):
		if splitter:
			take(kind, splitter.rest())
	seconds = time.monotonic() - start
	# QEMU (or its wrapper), waited for, is this process's only child: its
	# whole CPU time, and that of the children it waited for.
	usage = resource.getrusage(resource.RUSAGE_CHILDREN)
	cpu = max(cpu, usage.ru_utime + usage.ru_stime)
	for fd in (tests_in, tests_out, mon_in, mon_out):
		os.close(fd)
	return console, tests, status, seconds, cpu, why


def load_parser(path):
	sys.dont_write_bytecode = True	# no __pycache__ in the kernel worktree
	sys.path.insert(0, path)
	import kunit_parser  # pylint: disable=import-outside-toplevel
	import kunit_printer  # pylint: disable=import-outside-toplevel
	return kunit_parser, kunit_printer


RUN_LINE = re.compile(r'^(\s*)#\s+RUN\s+(\S+) \.\.\.$')
NAMELESS = re.compile(r'^(\s*)(ok|not ok) (\d+) (# .*)$')


def name_results(lines):
	"""6.1's kselftest_harness prints a skip as "ok N # SKIP reason", with no
	name, which KTAP (and kunit_parser) do not accept: name it after the
	"#  RUN NAME ..." line before it, or "test N"."""
	run = {}
	for line in lines:
		m = RUN_LINE.match(line)
		if m:
			run[m.group(1)] = m.group(2)
		m = NAMELESS.match(line)
		if m:
			indent, ok, num, rest = m.groups()
			line = f'{indent}{ok} {num} {run.pop(indent, "test " + num)} {rest}'
		yield line


def parse_ktap(parser, printer, lines):
	"""Parse KTAP with the tree's kunit_parser; return (Test, its printout)."""
	lines = list(name_results(lines))
	out = io.StringIO()
	printer.stdout._output = out		# pylint: disable=protected-access
	printer.stdout._use_color = False	# pylint: disable=protected-access
	test = parser.parse_run_tests(lines)
	text = re.sub(r'^\[\d\d:\d\d:\d\d\] ', '', out.getvalue(), flags=re.M)
	return test, text


def full_name(prefix, test):
	name = test.name or '?'
	return f'{prefix}.{name}' if prefix else name


def leaves(test, prefix=''):
	"""Yield (full name, status, log) of every test case of a parsed tree."""
	for sub in test.subtests:
		name = full_name(prefix, sub)
		if sub.subtests:
			yield from leaves(sub, name)
		else:
			yield name, sub.status.name, sub.log


def unexplained(test, bad, prefix=''):
	"""Full names of the failed tests of a tree: the failed test cases, and
	a failed parent none of whose cases failed (say, a test program that
	exited non-zero after all its cases passed)."""
	out = []
	for sub in test.subtests:
		name = full_name(prefix, sub)
		below = unexplained(sub, bad, name) if sub.subtests else []
		if below:
			out += below
		elif sub.status.name in bad:
			out.append(name)
	return out


def first_splat(console):
	"""The lines of the first splat in the console, or None."""
	for i, line in enumerate(console):
		if line.startswith('qemu: '):
			continue
		if SPLAT.search(line):
			end = i + 1
			while end < len(console) and end - i < SPLAT_MAX:
				end += 1
				if SPLAT_END.search(console[end - 1]):
					break
			return console[i:end]
	return None


def decide(case, args, console, tests, status, seconds, cpu, why):
	"""Turn what the guest printed into a verdict dictionary."""
	parser, printer = load_parser(args.parser)
	reasons, detail = [], []
	counts = {'passed': 0, 'failed': 0, 'skipped': 0}
	results = []

	if status == 'timeout':
		reasons.append(why)
		detail = [f'last {TAIL} lines:'] + MERGED[-TAIL:]

	scan = console
	if case.expect == 'panic':
		at = next((i for i, l in enumerate(console) if PANIC in l), None)
		if at is None:
			if status != 'timeout':
				reasons.append('expected a kernel panic, there was none')
				detail = detail or [f'last {TAIL} lines:'] + MERGED[-TAIL:]
		else:
			scan = console[:at]
	splat = first_splat(scan)
	if splat:
		reasons.append('kernel splat: ' + splat[0].strip())
		detail = ['first splat:'] + splat

	if case.expect == 'pass' and status != 'timeout' and not splat:
		if not any(SHUTDOWN in l for l in console):
			reasons.append(f"the guest did not shut down (no '{SHUTDOWN}')")
			detail = detail or [f'last {TAIL} lines:'] + MERGED[-TAIL:]
	if isinstance(status, int) and status != 0:
		reasons.append(f'qemu exited with status {status}')
		qemu_err = [l for l in console if l.startswith('qemu: ')]
		detail = detail or qemu_err[-TAIL:]

	for pattern in case.expect_log:
		if not any(re.search(pattern, l) for l in MERGED):
			reasons.append(f"no line matches expect-log '{pattern}'")

	parsed_text = ''
	docs = []
	if case.expect == 'pass' or tests:
		docs.append(('tests', tests, len(case.tests)))
	if any(parser.KTAP_START.search(l) or parser.TAP_START.search(l) for l in console):
		docs.append(('console', console, None))
	ktap_status = []
	for label, lines, want in docs:
		test, text = parse_ktap(parser, printer, lines)
		parsed_text += text
		c = test.counts
		counts['passed'] += c.passed
		counts['failed'] += c.failed + c.crashed
		counts['skipped'] += c.skipped
		for name, st, log in leaves(test):
			results.append({'name': name, 'status': st, 'log': log})
		if test.status == parser.TestStatus.FAILURE_TO_PARSE_TESTS:
			reasons.append(f'no KTAP output on the {label} port')
			continue
		if c.errors:
			reasons.append(f'malformed KTAP on the {label} port ({c.errors} parser errors)')
			detail += [l for l in text.splitlines() if '[ERROR]' in l][:10]
		if want is not None and test.expected_count != want:
			reasons.append(f'the guest planned {test.expected_count} tests, the case lists {want}')
		failed = unexplained(test, ('FAILURE', 'TEST_CRASHED'))
		if failed:
			more = f' and {len(failed) - 8} more' if len(failed) > 8 else ''
			reasons.append('failed: ' + ', '.join(failed[:8]) + more)
			logs = {n: log for n, _, log in leaves(test)}
			for name in failed[:3]:
				detail += [f'{name}:'] + [f'  {l.strip()}' for l in logs.get(name, [])[-10:]]
		ktap_status.append(test.status)
	if reasons and not detail:
		detail = [l for l in parsed_text.splitlines()
			  if re.search(r'\[(FAILED|CRASHED|ERROR)\]', l)][:TAIL]

	if reasons:
		verdict = 'fail'
	elif ktap_status and all(s == parser.TestStatus.SKIPPED for s in ktap_status):
		verdict = 'skip'
		reasons.append('every test skipped')
	else:
		verdict = 'pass'
	return {'case': case.name, 'verdict': verdict, 'seconds': round(seconds, 1),
		'cpu': round(cpu, 1),
		**counts, 'reasons': reasons, 'detail': detail, 'results': results,
		'parsed': parsed_text}


def cmd_run(args):
	global LOG  # pylint: disable=global-statement
	case = Case(args.casefile)
	os.makedirs(args.workdir, exist_ok=True)
	with open(args.log, 'w') as LOG:
		console, tests, status, seconds, cpu, why = run_qemu(case, args)
	LOG = None
	res = decide(case, args, console, tests, status, seconds, cpu, why)
	with open(os.path.join(args.workdir, 'ktap'), 'w') as f:
		f.write('\n'.join(tests) + '\n')
	with open(os.path.join(args.workdir, 'parsed'), 'w') as f:
		f.write(res['parsed'])
	with open(os.path.join(args.workdir, 'result.json'), 'w') as f:
		json.dump(res, f, indent=1)
	if res['verdict'] != 'pass':
		for r in res['reasons']:
			print(f'  {case.name}: {r}')
		for line in res['detail']:
			print(f'    {line}')
	return 0


def cmd_skip(args):
	case = Case(args.casefile)
	os.makedirs(args.workdir, exist_ok=True)
	res = {'case': case.name, 'verdict': 'skip', 'seconds': 0.0, 'cpu': 0.0,
	       'passed': 0, 'failed': 0, 'skipped': 0, 'reasons': [args.reason], 'detail': [],
	       'results': []}
	with open(os.path.join(args.workdir, 'result.json'), 'w') as f:
		json.dump(res, f, indent=1)
	return 0


def cmd_report(args):
	results = []
	for path in args.results:
		with open(path) as f:
			results.append(json.load(f))
	n = {'pass': 0, 'fail': 0, 'skip': 0}
	width = max([len(r['case']) for r in results] + [4])
	print(f'  {"case":<{width}}  verdict  passed failed skipped  seconds'
	      '    cpu')
	for r in results:
		n[r['verdict']] += 1
		print(f'  {r["case"]:<{width}}  {r["verdict"]:<7}  {r["passed"]:>6} '
		      f'{r["failed"]:>6} {r["skipped"]:>7}  {r["seconds"]:>7.1f}'
		      f'  {r["cpu"]:>5.1f}')

	suites = ET.Element('testsuites', name='boot')
	for r in results:
		suite = ET.SubElement(suites, 'testsuite', name=r['case'],
				      tests=str(len(r['results']) + 1),
				      failures=str(r['failed'] + (r['verdict'] == 'fail')),
				      skipped=str(r['skipped']), time=str(r['seconds']))
		boot = ET.SubElement(suite, 'testcase', classname=r['case'],
				     name='boot', time=str(r['seconds']))
		if r['verdict'] == 'fail':
			fail = ET.SubElement(boot, 'failure', message='; '.join(r['reasons']))
			fail.text = '\n'.join(r['detail'])
		elif r['verdict'] == 'skip':
			ET.SubElement(boot, 'skipped', message='; '.join(r['reasons']))
		for t in r['results']:
			tc = ET.SubElement(suite, 'testcase', classname=r['case'], name=t['name'])
			if t['status'] == 'SKIPPED':
				ET.SubElement(tc, 'skipped')
			elif t['status'] != 'SUCCESS':
				fail = ET.SubElement(tc, 'failure', message=t['status'])
				fail.text = '\n'.join(t['log'])
	ET.indent(suites)
	ET.ElementTree(suites).write(args.junit, encoding='utf-8', xml_declaration=True)

	line = f'{n["pass"]} passed, {n["fail"]} failed'
	if n['skip']:
		line += f', {n["skip"]} skipped'
	print(line)
	return 1 if n['fail'] else 0


def main():
	ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
	sub = ap.add_subparsers(dest='cmd', required=True)
	run = sub.add_parser('run')
	run.add_argument('casefile')
	run.add_argument('--kernel', required=True)
	run.add_argument('--initrd', required=True)
	run.add_argument('--workdir', required=True)
	run.add_argument('--log', required=True)
	run.add_argument('--parser', required=True)
	run.add_argument('--qemu', default='qemu-system-x86_64')
	run.add_argument('--accel', default='tcg')
	skip = sub.add_parser('skip')
	skip.add_argument('casefile')
	skip.add_argument('--workdir', required=True)
	skip.add_argument('--reason', required=True)
	rep = sub.add_parser('report')
	rep.add_argument('--junit', required=True)
	rep.add_argument('results', nargs='+')
	args = ap.parse_args()
	# A signal ends the run through the finally clauses (QEMU is killed).
	for sig in (signal.SIGTERM, signal.SIGHUP):
		signal.signal(sig, lambda n, _: sys.exit(128 + n))
	return {'run': cmd_run, 'skip': cmd_skip, 'report': cmd_report}[args.cmd](args)


if __name__ == '__main__':
	sys.exit(main())

// SPDX-License-Identifier: GPL-2.0
/// Finds __setup() handlers that return 0.  A __setup() handler says with
/// its return value whether it took the parameter: 1 means handled, 0
/// means "not mine", and the kernel then passes "name=value" on to init as
/// an environment variable (or "name" as an argument), where it does not
/// belong and gets logged as unknown.  Handlers report a bad value with
/// pr_warn() and still return 1.  early_param() handlers are the other
/// way round (0 on success) and are not matched.
//
// Confidence: High
// Options: --no-includes --include-headers

virtual report

@s depends on report@
declarer name __setup;
identifier fn;
expression name;
@@
__setup(name, fn);

@r depends on report@
identifier s.fn;
position p;
@@
fn(...)
{
<+...
return@p 0;
...+>
}

@script:python depends on report@
p << r.p;
fn << s.fn;
@@
coccilib.report.print_report(p[0], "WARNING: __setup() handler %s() returns 0: the parameter is passed on to init; return 1" % fn)

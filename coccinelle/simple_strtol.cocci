// SPDX-License-Identifier: GPL-2.0
/// Finds calls of simple_strtol(), simple_strtoul(), simple_strtoll() and
/// simple_strtoull().  They do not report overflow and stop quietly at the
/// first character that is not a digit, so "12abc" parses as 12: the
/// kernel's own documentation marks them obsolete.  New code should use
/// kstrtol(), kstrtoul(), kstrtoint() and the rest of the kstrto*()
/// family, which reject trailing garbage and overflow with an error code.
/// Old calls are left alone: make check only reports the ones a patch adds.
//
// Confidence: High
// Options: --no-includes --include-headers

virtual report

@r depends on report@
expression list args;
position p;
@@
(
 simple_strtol@p(args)
|
 simple_strtoul@p(args)
|
 simple_strtoll@p(args)
|
 simple_strtoull@p(args)
)

@script:python depends on report@
p << r.p;
@@
coccilib.report.print_report(p[0], "WARNING: simple_strto*() in new code: use kstrto*(), which reports bad input and overflow")

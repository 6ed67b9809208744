// SPDX-License-Identifier: GPL-2.0
/// Finds EXPORT_SYMBOL() of a security_*() function.  The security_*()
/// calls are the interface between the core kernel and the security
/// modules, internal to the kernel, so a new export of one belongs under
/// EXPORT_SYMBOL_GPL().  A plain EXPORT_SYMBOL() hands the hook to any
/// module, whatever its licence, and cannot be narrowed later without
/// breaking that module.  security/security.c has many old plain exports
/// (see coccinelle/baseline.txt); make check only reports the ones a patch
/// adds.
//
// Confidence: High
// Options: --no-includes --include-headers

virtual report

@r depends on report@
declarer name EXPORT_SYMBOL;
identifier f =~ "^security_";
position p;
@@
EXPORT_SYMBOL@p(f);

@script:python depends on report@
p << r.p;
f << r.f;
@@
coccilib.report.print_report(p[0], "WARNING: EXPORT_SYMBOL(%s): export security_*() functions with EXPORT_SYMBOL_GPL()" % f)

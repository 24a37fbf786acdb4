"""Facts about training code shared by the rules.

LibCST gives syntax, positions, scopes and qualified names but no control or
data flow. The modules here derive the flow facts the rules need (training
steps, optimizer objects, loop-carried names, ``no_grad`` regions …) once per
module through :meth:`autofix.context.RuleContext.fact`.
"""

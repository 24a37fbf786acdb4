"""The program model: one description of the user's code that every rule queries.

Built with Python's :mod:`ast` (no LibCST, nothing imported or run), lazily:
a rule that never touches ``context.model`` costs nothing, and other files of
the project are parsed only when a name imported from them is looked up.
Summaries are plain data cached process-wide by (path, content hash).

Modules
-------
* :mod:`autofix.model.vocabulary` — the ONE table of operations that make,
  keep or cut a graph (``CUT_METHODS``, ``KEEP_METHODS``, ``CUT_ATTRIBUTES``,
  ``CUT_FUNCTIONS``, ``TORCH_CUT_FUNCTIONS``, ``NUMBER_METHODS`` …) and the
  questions ``method_effect(name)``, ``function_effect(spelled, qualified)``,
  ``attribute_cuts(name)``, ``is_optimizer_constructor(qualified)``.
* :mod:`autofix.model.summaries` — the data: :class:`ModuleSummary`,
  :class:`ClassSummary`, :class:`FunctionSummary`, :class:`AttributeSummary`,
  :class:`Returns`, and the enums :class:`Kind` (what a value is) and
  :class:`AttrKind` (what a ``self`` attribute holds).
* :mod:`autofix.model.frameworks` — loop contracts of Lightning, Hugging Face
  ``Trainer``, ignite and accelerate (:class:`Framework`, :class:`LoopContract`).
* :mod:`autofix.model.project` — :class:`Project` (root, module files, import
  resolution) and :class:`ModuleModel` (what a rule holds).

How a rule queries it
---------------------
``model = self.context.model`` (a :class:`ModuleModel` of the current file)::

    # functions and methods of this file, by qualname
    step = model.function("Trainer.train_step")        # FunctionSummary or None
    step.params                     # ('self', 'batch')
    step.backward_calls             # [BackwardCall(tensor=Target('local', 'loss'), via=None|'scaler'|
                                    #   'accelerator'|'manual_backward'|'torch.autograd', retain_graph, line)]
    step.steps                      # [StepCall(optimizer=Target('self', 'optimizer'), known, line)]
    step.zero_grads                 # [ZeroGradCall(target=Target('self', 'optimizer'), line)]
    step.grad_hand_overs            # [GradHandOver(local=Target('param', 'model'), conditional, line)]:
                                    #   `for p, sp in zip(model.parameters(), shared.parameters()): sp._grad = p.grad`
    step.self_calls                 # ['model', 'backward_D', ...] every self.<x>(...) in order
    step.self_reads, step.self_writes
    step.returns                    # Returns(kinds={Kind.DICT}, dict_keys={'loss'}, tuple_kinds, via_calls)
    step.number_params              # params turned into Python numbers (.item(), float(p), p.tolist())
    step.accumulated_params         # {'val': {'sum', 'vals'}}: param graph kept in self attributes
    step.inplace_params, step.detached_params, step.detached_in_place
    step.kept_params                # params whose graph may outlive the call (returned, stored, passed on)
    step.returns_detached           # every return detaches (a ``repackage_hidden``-like helper)
    step.detached_copy              # what it returns holds no graph of its arguments (strictly: detach,
                                    #   recursion, tuples of those; stores and calls nothing else)
    step.handed_on                  # {'memory': ('self.repackage_hidden', 0)}: params first read as one
                                    #   argument of a call that rebinds them (``memory = f(memory)``)
    step.returns.shapes             # {Shape(TUPLE, (Shape(GRAPH), Shape(TUPLE, (GRAPH, GRAPH))))}: per return,
                                    #   tuples by position, dicts by value, ``self.lstm(x)`` by layer
    step.local_constructors         # {'meter': 'utils.AverageMeter'}
    step.element_constructors       # {'meters': 'utils.AverageMeter'} of {k: AverageMeter() ...}
    step.has_loop, step.calls, step.line, step.class_name, step.module
    step.sync_gated, step.in_sync_gated(line)   # inside `with accelerator.accumulate(model):`
    step.prepared                   # names bound by accelerator.prepare(...): step/zero_grad sync-gated
    step.returned_outputs           # a forward's returns: what produced each (``op:sigmoid``, ``self:act``, "")
    model.function("<module>")      # the module's own top-level statements (a script's loop)
    model.function_at(line)         # the innermost function whose def spans a 1-based line

Lines (``BackwardCall.line``, ``StepCall.line``, ``ZeroGradCall.line``,
``FunctionSummary.line``) are 1-based like LibCST's positions, so a rule
matches them with ``self.context.get(PositionProvider, node).start.line``.

    # classes and what their attributes hold (own assignments first, then project bases')
    cls = model.cls("Trainer")                          # ClassSummary or None
    attr = model.attribute(cls, "optimizer")            # AttributeSummary or None
    attr.kind                       # AttrKind.OPTIMIZER / SCALER / MODULE / TENSOR / PARAMETER /
                                    # DICT / LIST / NUMBER / NONE / CALLABLE / SCHEDULER / UNKNOWN
    attr.constructor                # 'torch.optim.Adam', 'pkg.models.Net' (project classes that are
                                    #   nn.Modules get kind MODULE through model.attribute)
    attr.last_layer, attr.ends_inplace   # nn.Sequential(..., nn.ReLU(inplace=True)), also *layers
    attr.requires_grad, attr.buffer, attr.from_param, attr.assigned_in
    model.framework(cls)            # Framework.LIGHTNING / HF_TRAINER / MODULE / NONE / UNKNOWN
    model.method(cls, "forward")    # through project bases
    model.mro(cls), model.all_bases(cls), model.is_module_class(cls)

    # across files (None when the project does not define it, or the file stands alone)
    model.resolve("AverageMeter")           # ClassSummary / FunctionSummary from another file
    model.callee(step, "self.meter.update") # the FunctionSummary a call in `step` runs
    model.callee(step, "self.backward_D")   # a method of the class or a project base
    model.callee(step, "meters[].update")   # a method of the elements of ``meters``
    model.returned_shapes(function)         # shapes, following ``return self.net(x)`` / ``return helper(x)``
    model.returns(function)                 # Returns, following returned calls into callees
    model.self_method_calls(step)           # [FunctionSummary] of the self.<m>() calls, in order
    model.cut_params(function)              # params whose argument's graph reaches nothing a call builds:
                                            #   cut_params, and handed_on ones a callee cuts in turn
    model.qualify("nn.ReLU")                # 'torch.nn.ReLU'

    # frameworks: is this function one iteration of a loop a framework owns?
    contract = model.loop_contract(step)    # LoopContract or None
    contract.framework, contract.counter    # ('batch_idx' / 'engine.state.iteration')
    contract.backward_returned              # the framework back-propagates the returned loss
    contract.steps_and_zero_grads           # ... and steps / zero_grads after each iteration
    contract.loss_key                       # 'loss' of a returned dict

Facts are syntactic: a value whose kind cannot be told is ``Kind.UNKNOWN``,
and a rule must not fix on unknowns (report with "(no fix: …)" instead).
"""

from autofix.model.frameworks import Framework, LoopContract
from autofix.model.project import ModuleModel, Project, clear_cache, find_root, model_for_source, project_for
from autofix.model.summaries import (
    AttributeSummary,
    AttrKind,
    BackwardCall,
    ClassSummary,
    FunctionSummary,
    GradHandOver,
    Kind,
    ModuleSummary,
    Returns,
    Shape,
    StepCall,
    Target,
    ZeroGradCall,
)

__all__ = [
    "AttrKind",
    "AttributeSummary",
    "BackwardCall",
    "ClassSummary",
    "Framework",
    "FunctionSummary",
    "GradHandOver",
    "Kind",
    "LoopContract",
    "ModuleModel",
    "ModuleSummary",
    "Project",
    "Returns",
    "Shape",
    "StepCall",
    "Target",
    "ZeroGradCall",
    "clear_cache",
    "find_root",
    "model_for_source",
    "project_for",
]

"""The loop contracts of the frameworks that own the training loop, as data.

Read from the frameworks' own sources (lightning 2.6, pytorch-ignite 0.5,
accelerate 1.15, transformers 5.x):

* **Lightning** (``LightningModule``): the fit loop calls
  ``training_step(self, batch, batch_idx)`` once per batch. With automatic
  optimisation (the default) the loop back-propagates the returned loss (a
  tensor, or a dict's ``'loss'``; ``None`` skips the batch), then steps and
  zero_grads every optimizer from ``configure_optimizers``.
  ``self.automatic_optimization = False`` hands all three to the step itself:
  ``self.manual_backward(loss)``, ``opt = self.optimizers(); opt.step();
  opt.zero_grad()``.
* **Hugging Face** ``transformers.Trainer`` (and subclasses such as trl's):
  ``training_step(self, model, inputs, num_items_in_batch=None)`` is one
  micro-batch; it calls ``self.compute_loss(model, inputs)`` and back-propagates
  with ``self.accelerator.backward(loss)``, and returns ``loss.detach()``. The
  outer loop steps and zero_grads behind gradient-accumulation guards.
  ``compute_loss`` must return the loss (or ``(loss, outputs)``) with its graph.
* **ignite**: ``Engine(process_function)`` calls ``process_function(engine,
  batch)`` once per iteration; the counter is ``engine.state.iteration``.
  Handlers registered with ``@engine.on(Events.ITERATION_*)`` also run once
  per iteration.
* **accelerate**: ``accelerator.backward(loss)`` is the backward pass; inside
  ``with accelerator.accumulate(model):`` an optimizer returned by
  ``accelerator.prepare`` only steps and zero_grads when
  ``accelerator.sync_gradients`` is true (``AcceleratedOptimizer.step`` /
  ``zero_grad``), so a ``zero_grad()`` on every micro-batch is correct there.
* **Fabric**: ``fabric.backward(loss)`` is the backward pass; the user owns the loop.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import FrozenSet, Iterable, Optional, Tuple


class Framework(enum.Enum):
    LIGHTNING = "lightning"
    HF_TRAINER = "hf-trainer"
    IGNITE = "ignite"
    ACCELERATE = "accelerate"
    FABRIC = "fabric"
    #: a plain ``torch.nn.Module`` subclass
    MODULE = "module"
    #: a class with no known framework base
    NONE = "none"
    #: a base could not be resolved (a library class, a missing file)
    UNKNOWN = "unknown"


LIGHTNING_MODULES: FrozenSet[str] = frozenset(
    {
        "lightning.LightningModule", "lightning.pytorch.LightningModule", "lightning.pytorch.core.LightningModule",
        "lightning.pytorch.core.module.LightningModule", "pytorch_lightning.LightningModule",
        "pytorch_lightning.core.LightningModule", "pytorch_lightning.core.module.LightningModule",
        "pytorch_lightning.core.lightning.LightningModule", "lightning_lite.LightningModule",
    }
)

HF_TRAINERS: FrozenSet[str] = frozenset(
    {
        "transformers.Trainer", "transformers.trainer.Trainer", "transformers.Seq2SeqTrainer",
        "transformers.trainer_seq2seq.Seq2SeqTrainer",
    }
)
#: packages whose ``*Trainer`` classes subclass ``transformers.Trainer``
HF_TRAINER_PACKAGES = ("trl.", "setfit.", "peft.")

NN_MODULES: FrozenSet[str] = frozenset(
    {"torch.nn.Module", "torch.nn.modules.module.Module", "torch.nn.Sequential", "torch.nn.ModuleList",
     "torch.nn.ModuleDict", "torch.nn.modules.container.Sequential"}
)

#: Callables whose first argument is one iteration of their loop.
LOOP_CONSTRUCTORS: FrozenSet[str] = frozenset(
    {"ignite.engine.Engine", "ignite.engine.engine.Engine", "ignite.engine.DeterministicEngine",
     "ignite.engine.deterministic.DeterministicEngine"}
)

ACCELERATORS: FrozenSet[str] = frozenset({"accelerate.Accelerator", "accelerate.accelerator.Accelerator"})
FABRICS: FrozenSet[str] = frozenset({"lightning.Fabric", "lightning.fabric.Fabric", "lightning_fabric.Fabric",
                                     "lightning.fabric.fabric.Fabric"})

#: ``with <accelerator>.<name>(model):`` — optimizers prepared by accelerate only step and
#: zero_grad on the micro-batch that syncs gradients.
SYNC_GATED_CONTEXTS: FrozenSet[str] = frozenset({"accumulate"})
#: methods whose call back-propagates their first argument
BACKWARD_METHODS: FrozenSet[str] = frozenset({"backward", "manual_backward"})


def base_framework(qualified: str) -> Optional[Framework]:
    """The framework a base class (qualified name) belongs to; None when it names no known one."""
    if qualified in LIGHTNING_MODULES:
        return Framework.LIGHTNING
    if qualified in HF_TRAINERS or (qualified.startswith(HF_TRAINER_PACKAGES) and qualified.endswith("Trainer")):
        return Framework.HF_TRAINER
    if qualified in NN_MODULES:
        return Framework.MODULE
    return None


def combine(kinds: Iterable[Framework]) -> Framework:
    """The framework of a class from its bases' (the most specific wins)."""
    found = set(kinds)
    for kind in (Framework.LIGHTNING, Framework.HF_TRAINER, Framework.MODULE, Framework.UNKNOWN):
        if kind in found:
            return kind
    return Framework.NONE


@dataclass(frozen=True)
class LoopContract:
    """What a framework does around one call of a function it loops over."""

    framework: Framework
    #: the function that is one iteration (``training_step``, the ignite update function)
    function: str
    #: the parameter that counts iterations (``batch_idx``), or an expression (``engine.state.iteration``)
    counter: Optional[str]
    #: the framework back-propagates what the function returns (a tensor, or a dict's ``'loss'``)
    backward_returned: bool
    #: the framework steps the optimizers and zero_grads them after each iteration
    steps_and_zero_grads: bool
    #: the key of a returned dict that is back-propagated
    loss_key: Optional[str] = None


LIGHTNING_STEP = "training_step"
HF_STEP_METHODS: FrozenSet[str] = frozenset({"training_step", "compute_loss"})


def method_contract(framework: Framework, method: str, params: Tuple[str, ...], manual: bool) -> Optional[LoopContract]:
    """The contract of ``method`` of a class of ``framework`` (``params`` include ``self``)."""
    if framework is Framework.LIGHTNING and method == LIGHTNING_STEP:
        counter = params[2] if len(params) > 2 else None
        automatic = not manual
        return LoopContract(framework, method, counter, automatic, automatic, "loss" if automatic else None)
    if framework is Framework.HF_TRAINER and method in HF_STEP_METHODS:
        # training_step back-propagates itself (accelerator.backward); compute_loss's result is
        # back-propagated by training_step; the outer loop steps.
        return LoopContract(framework, method, None, method == "compute_loss", True)
    return None


def update_function_contract(name: str, params: Tuple[str, ...]) -> LoopContract:
    """The contract of a function handed to an ignite ``Engine`` (or an iteration event handler)."""
    engine = params[0] if params else "engine"
    return LoopContract(Framework.IGNITE, name, f"{engine}.state.iteration", False, False)

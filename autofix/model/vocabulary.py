"""One table of the operations that make, keep or cut an autograd graph.

Every analysis asks these questions through this module, so that two rules
never disagree about what ``x.argmax()`` or ``float(loss)`` returns. The sets
are of *spellings* (a method's name, an attribute's name, a builtin's name, the
last part of a ``torch.*`` function's qualified name); the questions at the
bottom answer with one :class:`Effect`.

The deciding facts:

* A result that is an integer or boolean tensor carries no gradient history:
  ``argmax``, ``long()``, ``int()``, ``bool()``, comparisons, ``nonzero``.
* A Python number carries none: ``.item()``, ``float(x)``, ``int(x)``,
  ``math.*``, ``len``.
* Shape and bookkeeping attributes carry none: ``x.shape``, ``x.grad``,
  ``x.data`` (``.data`` shares storage but has no history).
* Views, casts to floating types, reductions and elementwise maths keep the
  receiver's graph.
* Methods of modules, optimizers, strings and dicts' ``keys`` return no graph
  tensor (``model.parameters()`` returns leaves, which are not a graph).
"""

from __future__ import annotations

import enum
import re
from typing import Dict, FrozenSet, Optional


class Effect(enum.Enum):
    """What an operation does to the autograd graph of its inputs."""

    #: the result carries no graph (a number, an integer tensor, a detached copy)
    CUT = "cut"
    #: the result carries its inputs' graph and nothing new (views, casts, maths)
    KEEP = "keep"
    #: the result is a new graph through parameters (a forward pass)
    MAKE = "make"
    #: nothing is known
    UNKNOWN = "unknown"


#: Tensor methods whose result carries no graph (or is no tensor at all).
CUT_METHODS: FrozenSet[str] = frozenset(
    {
        "detach", "detach_", "item", "tolist", "numpy", "cpu_numpy", "__len__", "size", "dim", "numel",
        # integer and boolean results: no gradient flows through them
        "argmax", "argmin", "argsort", "long", "int", "bool", "byte", "short", "char",
        "eq", "ne", "gt", "lt", "ge", "le", "isnan", "isinf", "isfinite", "nonzero", "count_nonzero",
        "sign", "multinomial", "bernoulli", "sample",
        # bookkeeping
        "element_size", "data_ptr", "get_device", "is_contiguous", "is_floating_point",
        # fresh tensors shaped like the receiver
        "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor",
    }
)

#: Methods of non-tensors (modules, optimizers, strings, dict keys) whose result is no graph tensor.
NON_TENSOR_METHODS: FrozenSet[str] = frozenset(
    {
        "zero_grad", "state_dict", "parameters", "named_parameters", "modules", "children", "buffers",
        "named_buffers", "named_modules", "train", "eval", "keys",
        "startswith", "endswith", "format", "join", "strip", "lower", "upper", "replace",
    }
)

#: every public method of ``torch.Tensor`` (torch 2.x), and what a
#: ``torch.distributions`` object computes from its parameters. A method call spelled with any other name
#: (``loss.get_loss()``, ``meter.value()``) is not a tensor operation: whatever it returns is
#: not known to be a tensor, even on a receiver the analysis took for one.
TENSOR_METHODS: FrozenSet[str] = frozenset(
    """
    abs abs_ absolute absolute_ acos acos_ acosh acosh_ add add_ addbmm addbmm_ addcdiv addcdiv_ addcmul
    addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint all allclose amax amin aminmax angle any apply_ arccos
    arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan arctan2 arctan2_ arctan_ arctanh arctanh_
    argmax argmin argsort argwhere as_strided as_strided_ as_strided_scatter as_subclass asin asin_ asinh asinh_
    atan atan2 atan2_ atan_ atanh atanh_ backward baddbmm baddbmm_ bernoulli bernoulli_ bfloat16 bincount
    bitwise_and bitwise_and_ bitwise_left_shift bitwise_left_shift_ bitwise_not bitwise_not_ bitwise_or
    bitwise_or_ bitwise_right_shift bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm bool broadcast_to byte
    cauchy_ ccol_indices cdouble ceil ceil_ cfloat chalf char cholesky cholesky_inverse cholesky_solve chunk
    clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clip clip_ clone coalesce col_indices conj
    conj_physical conj_physical_ const_data_ptr contiguous copy_ copysign copysign_ corrcoef cos cos_ cosh cosh_
    count_nonzero cov cpu cross crow_indices cuda cummax cummin cumprod cumprod_ cumsum cumsum_ data_ptr deg2rad
    deg2rad_ dense_dim dequantize det detach detach_ diag diag_embed diagflat diagonal diagonal_scatter diff
    digamma digamma_ dim dim_order dist div div_ divide divide_ dot double dsplit eig element_size eq eq_ equal
    erf erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_ exp_ expand expand_as expm1 expm1_ exponential_ fill_
    fill_diagonal_ fix fix_ flatten flip fliplr flipud float float_power float_power_ floor floor_ floor_divide
    floor_divide_ fmax fmin fmod fmod_ frac frac_ frexp gather gcd gcd_ ge ge_ geometric_ geqrf ger get_device
    greater greater_ greater_equal greater_equal_ gt gt_ half hardshrink hash_tensor heaviside heaviside_ histc
    histogram hsplit hypot hypot_ i0 i0_ igamma igamma_ igammac igammac_ index index_add index_add_ index_copy
    index_copy_ index_fill index_fill_ index_put index_put_ index_reduce index_reduce_ index_select indices
    inner int int_repr inverse ipu is_coalesced is_complex is_conj is_contiguous is_distributed
    is_floating_point is_inference is_neg is_nonzero is_pinned is_same_size is_set_to is_shared is_signed
    isclose isfinite isinf isnan isneginf isposinf isreal istft item kron kthvalue lcm lcm_ ldexp ldexp_ le le_
    lerp lerp_ less less_ less_equal less_equal_ lgamma lgamma_ log log10 log10_ log1p log1p_ log2 log2_ log_
    log_normal_ log_softmax logaddexp logaddexp2 logcumsumexp logdet logical_and logical_and_ logical_not
    logical_not_ logical_or logical_or_ logical_xor logical_xor_ logit logit_ logsumexp long lstsq lt lt_ lu
    lu_solve map2_ map_ masked_fill masked_fill_ masked_scatter masked_scatter_ masked_select matmul matrix_exp
    matrix_power max maximum mean median min minimum mm mode module_load moveaxis movedim msort mtia mul mul_
    multinomial multiply multiply_ mv mvlgamma mvlgamma_ nan_to_num nan_to_num_ nanmean nanmedian nanquantile
    nansum narrow narrow_copy ndimension ne ne_ neg neg_ negative negative_ nelement new new_empty
    new_empty_strided new_full new_ones new_tensor new_zeros nextafter nextafter_ nonzero nonzero_static norm
    normal_ not_equal not_equal_ numel numpy orgqr ormqr outer permute pin_memory pinverse polygamma polygamma_
    positive pow pow_ prelu prod put put_ q_per_channel_axis q_per_channel_scales q_per_channel_zero_points
    q_scale q_zero_point qr qscheme quantile rad2deg rad2deg_ random_ ravel reciprocal reciprocal_ record_stream
    register_hook register_post_accumulate_grad_hook reinforce relu relu_ remainder remainder_ renorm renorm_
    repeat repeat_interleave requires_grad_ reshape reshape_as resize resize_ resize_as resize_as_
    resize_as_sparse_ resolve_conj resolve_neg retain_grad roll rot90 round round_ row_indices rsqrt rsqrt_
    scatter scatter_ scatter_add scatter_add_ scatter_reduce scatter_reduce_ select select_scatter set_ sgn sgn_
    share_memory_ short sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc sinc_ sinh sinh_ size slice_inverse
    slice_scatter slogdet smm softmax solve sort sparse_dim sparse_mask sparse_resize_ sparse_resize_and_clear_
    split split_with_sizes sqrt sqrt_ square square_ squeeze squeeze_ sspaddmm std stft storage storage_offset
    storage_type stride sub sub_ subtract subtract_ sum sum_to_size svd swapaxes swapaxes_ swapdims swapdims_
    symeig t t_ take take_along_dim tan tan_ tanh tanh_ tensor_split tile to to_dense to_mkldnn to_padded_tensor
    to_sparse to_sparse_bsc to_sparse_bsr to_sparse_coo to_sparse_csc to_sparse_csr tolist topk trace transpose
    transpose_ triangular_solve tril tril_ triu triu_ true_divide true_divide_ trunc trunc_ type type_as unbind
    unflatten unfold uniform_ unique unique_consecutive unsafe_chunk unsafe_split unsafe_split_with_sizes
    unsqueeze unsqueeze_ untyped_storage values var vdot view view_as vsplit where xlogy xlogy_ xpu zero_
    """.split()
) | frozenset({"log_prob", "rsample", "entropy", "cdf", "icdf", "perplexity"})

#: Methods whose result keeps the receiver's (and arguments') graph without
#: adding parameters of their own: tensor views, casts to floating types,
#: reductions and maths, container access, AMP loss scaling.
KEEP_METHODS: FrozenSet[str] = frozenset(
    {
        "to", "cuda", "cpu", "float", "half", "double", "bfloat16", "type", "type_as",
        "view", "view_as", "reshape", "reshape_as", "permute", "transpose", "t", "flatten", "unflatten",
        "squeeze", "unsqueeze", "contiguous", "clone", "expand", "expand_as", "repeat", "chunk", "split",
        "unbind", "narrow", "select", "index_select", "gather", "masked_fill", "masked_select", "where",
        "sum", "mean", "std", "var", "norm", "abs", "pow", "exp", "log", "sqrt", "sigmoid", "tanh", "relu",
        "softmax", "log_softmax", "max", "min", "clamp", "clip", "neg", "mul", "add",
        "sub", "div", "matmul", "mm", "bmm", "dot", "square", "prod", "cumsum", "logsumexp", "lerp",
        "get", "values", "items", "pop", "copy", "append", "extend", "scale", "float_power",
    }
)

#: Attributes that carry no graph.
CUT_ATTRIBUTES: FrozenSet[str] = frozenset(
    {
        "shape", "dtype", "device", "data", "grad", "requires_grad", "ndim", "is_cuda", "grad_fn",
        "is_leaf", "layout", "training", "T_max",
    }
)

#: Builtins and numeric helpers (dotted as spelled) whose result carries no graph.
CUT_FUNCTIONS: FrozenSet[str] = frozenset(
    {
        "float", "int", "len", "str", "bool", "round", "isinstance", "print", "repr", "hash", "id",
        "type", "range", "format", "hasattr", "getattr", "callable", "math.isfinite", "math.isnan",
        "np.mean", "numpy.mean", "np.array", "numpy.array", "np.asarray", "numpy.asarray",
    }
)

#: Attributes of a module that are its parameters (leaves: arithmetic on them makes a graph).
PARAMETER_ATTRIBUTES: FrozenSet[str] = frozenset({"weight", "bias"})

#: Library calls that build a whole model (qualified-name prefixes, and last names).
MODEL_BUILDER_PREFIXES = ("torchvision.models.", "timm.create_model")
MODEL_BUILDER_NAMES: FrozenSet[str] = frozenset({"from_pretrained", "create_model"})

#: context managers (``with torch.no_grad():``) under which autograd records nothing
GRAD_DISABLING_CONTEXTS: FrozenSet[str] = frozenset({"no_grad", "inference_mode"})

#: ``nn.Module`` methods that hand back the module itself (``model = Net().to(device)`` is still a ``Net``).
MODULE_SELF_METHODS: FrozenSet[str] = frozenset(
    {"to", "cuda", "cpu", "train", "eval", "float", "double", "half", "bfloat16", "requires_grad_"}
)

#: Builtins whose result is a Python number when given a tensor (``float(loss)``).
NUMBER_FUNCTIONS: FrozenSet[str] = frozenset({"float", "int", "round", "bool", "len", "abs"})

#: Methods that turn a tensor into Python numbers (or lists or arrays of them).
NUMBER_METHODS: FrozenSet[str] = frozenset({"item", "tolist", "numpy"})

#: ``torch.<name>`` functions whose result carries no graph: factories,
#: integer and boolean results, random sampling, bookkeeping.
TORCH_CUT_FUNCTIONS: FrozenSet[str] = frozenset(
    {
        "zeros", "ones", "empty", "full", "randn", "rand", "randint", "randperm", "arange", "linspace",
        "logspace", "eye", "tensor", "as_tensor", "from_numpy", "zeros_like", "ones_like", "empty_like",
        "full_like", "randn_like", "rand_like", "randint_like", "argmax", "argmin", "argsort", "eq",
        "ne", "gt", "lt", "ge", "le", "isnan", "isinf", "isfinite", "numel", "no_grad", "manual_seed",
        "multinomial", "bernoulli", "normal", "device", "Size", "get_rng_state", "is_tensor",
        "count_nonzero", "nonzero", "sign", "bucketize", "searchsorted", "unique",
        # legacy typed constructors: ``torch.FloatTensor(n).fill_(1)`` is data
        "Tensor", "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
        "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
        # ``torch.autograd.Variable(x)`` (deprecated) is a new leaf with x's data and no history
        "Variable",
    }
)

#: Cut ops whose result still holds a graph node (one that passes back zeros), so the graph under
#: them stays alive as long as the result does: ``torch.sign(x * w)`` keeps what ``*`` saved.
ZERO_GRADIENT_OPS: FrozenSet[str] = frozenset({"sign", "bernoulli", "normal", "unique"})
#: methods and ``torch`` functions whose result holds no graph node at all: whatever their operands
#: saved dies with the result, and no backward walks under it
NO_HISTORY_METHODS: FrozenSet[str] = CUT_METHODS - ZERO_GRADIENT_OPS
NO_HISTORY_TORCH_FUNCTIONS: FrozenSet[str] = TORCH_CUT_FUNCTIONS - ZERO_GRADIENT_OPS

#: Builtins whose result is a plain Python value holding no graph at all (``abs``/``round`` of a tensor are tensors).
PYTHON_VALUE_FUNCTIONS: FrozenSet[str] = frozenset({"float", "int", "bool", "len"})

#: Ops that return several views of one tensor: autograd refuses any in-place write to one of
#: them while their base requires grad ("Output 0 of SplitBackward0 is a view and is being
#: modified inplace. This view is the output of a function that returns multiple views").
MULTI_VIEW_OPS: FrozenSet[str] = frozenset({"split", "chunk", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit"})
#: Tensor methods and ``torch`` functions whose result is a tuple of tensors, not one tensor.
TUPLE_RESULT_OPS: FrozenSet[str] = MULTI_VIEW_OPS | {"meshgrid", "broadcast_tensors"}
#: ... and those whose result is a (named) tuple when given a dimension or always.
MAYBE_TUPLE_RESULT_OPS: FrozenSet[str] = frozenset(
    {
        "max", "min", "sort", "topk", "median", "nanmedian", "mode", "kthvalue", "std_mean", "var_mean",
        "unique", "svd", "qr", "eig", "eigh", "slogdet", "lu", "aminmax", "histogram", "cummax", "cummin",
        "frexp", "where", "lstsq",
    }
)

#: Calls that consume a value for display only: a tensor handed to them is not kept.
DISPLAY_FUNCTIONS: FrozenSet[str] = CUT_FUNCTIONS | {
    "sum", "max", "min", "abs", "sorted", "statistics.mean", "math.exp", "np.exp", "numpy.exp", "np.std",
    "numpy.std",
}
#: Methods (of loggers, progress bars, strings) that consume a value for display only.
DISPLAY_METHODS: FrozenSet[str] = frozenset(
    {
        "info", "debug", "warning", "warn", "error", "log", "add_scalar", "add_scalars", "set_postfix",
        "set_description", "set_postfix_str", "write", "format", "log_metric", "log_metrics", "log_dict",
    }
)

#: Builtins that hold values without computing on them (a tuple of leaves is no graph).
CONTAINER_FUNCTIONS: FrozenSet[str] = frozenset(
    {"tuple", "list", "dict", "zip", "enumerate", "reversed", "sorted", "iter", "next", "set"}
)

#: Well-known helpers that return a detached copy of a hidden state.
DETACH_HELPER_NAMES: FrozenSet[str] = frozenset(
    {
        "repackage_hidden", "repackage_hiddens", "repackage_state", "detach_hidden", "detach_hiddens",
        "detach_state", "detach_states", "detach_all", "detach_tensors", "detach",
    }
)

#: Calls named so back-propagate: ``loss.backward()``, ``accelerator.backward(loss)``,
#: ``self.manual_backward(loss)``, ``torch.autograd.backward(...)``.
BACKWARD_CALLS: FrozenSet[str] = frozenset({"backward", "manual_backward"})
#: Calls that differentiate through a graph (and so free it unless told to keep it).
DIFFERENTIATING_CALLS: FrozenSet[str] = BACKWARD_CALLS | {"grad", "jacobian"}

#: Methods that put a value into a container that outlives the statement.
ACCUMULATING_METHODS: FrozenSet[str] = frozenset({"append", "extend", "insert", "add"})

#: Qualified-name prefixes of modules whose callables are not layers.
NN_NON_MODULES = (
    "torch.nn.functional", "torch.nn.init", "torch.nn.utils", "torch.nn.parameter", "torch.nn.Parameter",
)

#: Optimizer constructors outside ``torch.optim`` (qualified-name prefixes).
OPTIMIZER_PREFIXES = (
    "torch.optim.", "apex.optimizers.", "bitsandbytes.optim.", "timm.optim.", "transformers.optimization.",
    "torch.distributed.optim.", "deepspeed.ops.",
)
#: Functions (last part of the qualified name) that build an optimizer.
OPTIMIZER_FACTORIES: FrozenSet[str] = frozenset(
    {"create_optimizer", "create_optimizer_v2", "build_optimizer", "get_optimizer", "make_optimizer",
     "configure_optimizer", "AdamW", "Adafactor"}
)
#: Learning-rate schedulers are not optimizers (their ``step()`` takes no gradient).
SCHEDULER_PREFIX = "torch.optim.lr_scheduler."

#: Gradient scalers (``scaler.scale(loss).backward()``; ``scaler.step(opt)`` steps ``opt``).
SCALER_NAMES: FrozenSet[str] = frozenset(
    {"torch.cuda.amp.GradScaler", "torch.amp.GradScaler", "torch.cpu.amp.GradScaler",
     "torch.amp.grad_scaler.GradScaler", "torch.cuda.amp.grad_scaler.GradScaler"}
)

#: ``torch.nn`` activation modules that accept ``inplace=True``.
INPLACE_ACTIVATIONS: FrozenSet[str] = frozenset(
    {"ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "SiLU", "Mish", "Hardswish", "Hardsigmoid",
     "Hardtanh", "RReLU", "Threshold", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout"}
)


#: Ops whose backward reads their own output (an in-place write to it breaks backward), by last name.
SAVES_OUTPUT: FrozenSet[str] = frozenset(
    {"sigmoid", "tanh", "exp", "exp2", "expm1", "softmax", "log_softmax", "relu", "sqrt", "rsqrt", "reciprocal", "tan"}
)
#: ``torch.nn`` modules that save their output, and the op that does it.
OUTPUT_SAVING_MODULES: Dict[str, str] = {
    "ReLU": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Softmax": "softmax", "LogSoftmax": "log_softmax",
}
#: ``torch.nn`` recurrent modules: they return ``(output, hidden)``, and their backward reads
#: ``output`` (cuDNN's RNN backward takes the layer output for every cell type; on the CPU the
#: oneDNN LSTM layer saves it too), so an in-place write to the first element breaks backward.
#: The hidden state is not saved.
FIRST_OUTPUT_SAVING_MODULES: Dict[str, str] = {"LSTM": "lstm", "GRU": "gru", "RNN": "rnn"}


def method_effect(name: str) -> Effect:
    """What calling the tensor method ``name`` does to its receiver's graph."""
    if name in CUT_METHODS or name in NON_TENSOR_METHODS:
        return Effect.CUT
    if name in KEEP_METHODS:
        return Effect.KEEP
    return Effect.UNKNOWN


def function_effect(spelled: str, qualified: Optional[str] = None) -> Effect:
    """What calling a function does to its arguments' graph.

    ``spelled`` is the callee as written (``float``, ``np.mean``);
    ``qualified`` its qualified name when known (``torch.argmax``).
    """
    if spelled in CUT_FUNCTIONS:
        return Effect.CUT
    if qualified is not None and qualified.startswith("torch."):
        if qualified.rsplit(".", 1)[-1] in TORCH_CUT_FUNCTIONS:
            return Effect.CUT
        if qualified.startswith("torch.nn.") and not qualified.startswith(NN_NON_MODULES):
            return Effect.MAKE
        return Effect.KEEP
    if qualified is not None and qualified.startswith("math."):
        return Effect.CUT
    if spelled in CONTAINER_FUNCTIONS:
        return Effect.KEEP
    return Effect.UNKNOWN


def attribute_cuts(name: str) -> bool:
    """Does reading the attribute ``name`` give a value with no graph?"""
    return name in CUT_ATTRIBUTES


def is_optimizer_constructor(qualified: str) -> bool:
    """Does calling ``qualified`` build an optimizer (not a learning-rate scheduler)?"""
    if qualified.startswith(SCHEDULER_PREFIX):
        return False
    if qualified.startswith(OPTIMIZER_PREFIXES):
        last = qualified.rsplit(".", 1)[-1]
        return last[:1].isupper() or last in OPTIMIZER_FACTORIES
    return qualified.rsplit(".", 1)[-1] in OPTIMIZER_FACTORIES - {"AdamW", "Adafactor"}


# ---- what AF103 judges: ops that save their inputs, new tensors, views, initialisation code
# What autograd saves for backward follows torch's tools/autograd/derivatives.yaml (and
# torch/csrc/autograd/FunctionsManual.cpp): a formula that mentions ``result`` saves the output,
# one that mentions ``self``/``other`` saves that input. An in-place change to a saved tensor
# makes backward() raise "one of the variables needed for gradient computation has been
# modified by an inplace operation".

#: Backward reads the (single) input; saved only when that input requires grad.
SAVES_INPUT: FrozenSet[str] = frozenset(
    {
        "sin", "cos", "sinh", "cosh", "asin", "acos", "atan", "log", "log1p", "log2", "log10", "abs", "pow",
        "square", "clamp", "clip", "clamp_min", "clamp_max", "erf", "erfinv", "gelu", "silu", "mish", "softplus",
        "elu", "selu", "celu", "leaky_relu", "hardtanh", "relu6", "hardswish", "hardsigmoid", "threshold",
        "logsigmoid", "norm", "prod", "logsumexp", "std", "var", "cumprod", "max_pool1d", "max_pool2d",
        "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
        "adaptive_max_pool2d", "layer_norm", "group_norm", "batch_norm", "instance_norm", "normalize",
        "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
        "binary_cross_entropy_with_logits", "kl_div", "cosine_similarity",
    }
)
#: Binary ops whose backward for one operand reads the other one.
SAVES_PARTNER: FrozenSet[str] = frozenset({"mul", "multiply", "div", "divide", "true_divide", "matmul", "mm", "bmm", "linear"})
#: Python operators by the op they run; those whose backward reads a tensor are listed.
#: (LibCST's and ``ast``'s spellings of the operator).
SAVING_OPERATORS: Dict[str, str] = {
    "Multiply": "mul", "Divide": "div", "MatrixMultiply": "matmul", "Power": "pow",
    "Mult": "mul", "Div": "div", "MatMult": "matmul", "Pow": "pow",
}


def saves_for_backward(op: str) -> bool:
    """Does the op (last name: ``mm``, ``softmax``, ``pow``) keep a tensor for its backward?

    A graph made only of ops that keep nothing (``+``, views, slices, ``sum``, ``cat``) can be
    back-propagated again and again; one backward frees what the others keep, and the next
    backward through them raises ``Trying to backward through the graph a second time``."""
    return op in SAVES_INPUT or op in SAVES_PARTNER or op in SAVES_OUTPUT


#: Factories: their result is a new tensor nobody else holds.
FACTORIES: FrozenSet[str] = frozenset(
    {
        "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange", "linspace",
        "logspace", "eye", "tensor", "as_tensor", "zeros_like", "ones_like", "empty_like", "full_like",
        "rand_like", "randn_like", "randint_like", "bernoulli", "multinomial", "tril_indices", "triu_indices",
    }
)
FRESH_METHODS: FrozenSet[str] = frozenset({"new_zeros", "new_ones", "new_empty", "new_full", "new_tensor", "clone"})
#: Methods returning a view of the receiver (writes through them reach the base).
VIEW_METHODS: FrozenSet[str] = frozenset(
    {"view", "view_as", "reshape", "reshape_as", "transpose", "permute", "t", "unsqueeze", "squeeze", "expand",
     "expand_as", "narrow", "select", "unflatten", "flatten", "movedim", "moveaxis", "swapaxes", "swapdims",
     "diagonal", "unfold", "as_strided", "detach"}
)
#: Ops whose backward keeps no tensor (views, sums, concatenation, copies, conversions) and calls
#: whose result has no graph to free (factories): a graph made only of these can be walked again.
KEEPS_NOTHING: FrozenSet[str] = VIEW_METHODS | FACTORIES | FRESH_METHODS | frozenset(
    {"sum", "mean", "add", "sub", "neg", "cat", "stack", "contiguous", "to", "float", "double", "half",
     "bfloat16", "cuda", "cpu", "repeat", "chunk", "split"}
)
NON_TENSOR_BUILTINS: FrozenSet[str] = frozenset({"len", "int", "float", "bool", "str", "range", "list", "tuple", "dict", "set",
                                 "isinstance", "getattr", "hasattr", "print", "min", "max", "sum", "round", "abs"})
#: Functions that build or reset parameters: in-place writes there are initialisation.
INIT_NAME = re.compile(r"init|reset|(^|_)load|from_pretrained|^_?fill|^_?copy", re.IGNORECASE)
#: Top-level packages never part of the user's project.
#: Libraries that compute on arrays, images and numbers and build no models: given no graph, what
#: they return holds none (a float, an array).
DATA_LIBRARIES: FrozenSet[str] = frozenset({"numpy", "scipy", "sklearn", "pandas", "skimage", "cv2", "PIL", "statistics"})

LIBRARIES: FrozenSet[str] = frozenset({"torch", "numpy", "math", "typing", "collections", "functools", "itertools", "os", "sys",
                        "dataclasses", "abc", "enum", "re", "json", "pathlib", "warnings", "logging", "einops",
                        "transformers", "timm", "torchvision", "lightning", "pytorch_lightning", "__future__",
                        "tqdm", "apex", "scipy", "sklearn", "skimage", "PIL", "cv2", "pandas", "matplotlib",
                        "h5py", "gym", "gymnasium", "copy", "random", "time", "argparse", "pickle", "datetime",
                        "glob", "shutil", "string", "subprocess", "yaml", "wandb", "tensorboardX"})

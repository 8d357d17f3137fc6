"""posattn: the math of "The Position Problem" — self-attention is permutation equivariant.

Math modules need numpy only; ``posattn.plotting`` (matplotlib) and
``posattn.widgets`` (ipywidgets) are imported on demand, never here.
"""

from .attention import (
    attention_loop,
    cross_attention,
    scaled_dot_product_attention,
    self_attention,
    softmax,
)
from .baselines import conv1d, conv_kernel, influence, rnn, rnn_weights
from .embeddings import default_projections, embed, tokenize
from .permutations import (
    all_permutations,
    equivariance_error,
    invariance_error,
    inverse_permutation,
    permutation_matrix,
    random_permutation,
    shift_error,
    symmetries,
)
from .positions import (
    alibi_bias,
    alibi_slopes,
    causal_mask,
    learned_positions,
    padding_mask,
    relative_bias,
    sinusoidal_positions,
    sinusoidal_shift,
)
from .rope import frequencies, rope
from .scaling import decay_bound, scaled_frequencies, wavelengths, yarn_temperature
from .schemes import SCHEMES, attention_with_positions
from .transformer import (
    encoder,
    encoder_block,
    feed_forward,
    init_encoder_params,
    layer_norm,
    multi_head_attention,
)

__version__ = "5.0.0"  # the fifth edition (pyproject.toml, CHANGELOG.md)

__all__ = [
    "SCHEMES", "alibi_bias", "alibi_slopes", "all_permutations", "attention_loop",
    "attention_with_positions", "causal_mask", "conv1d", "conv_kernel", "cross_attention",
    "decay_bound", "default_projections", "embed", "encoder", "encoder_block", "equivariance_error",
    "feed_forward", "frequencies", "influence", "init_encoder_params", "invariance_error",
    "inverse_permutation", "layer_norm", "learned_positions", "multi_head_attention",
    "padding_mask", "permutation_matrix", "random_permutation", "relative_bias", "rnn",
    "rnn_weights", "rope", "scaled_dot_product_attention", "scaled_frequencies", "self_attention",
    "shift_error", "sinusoidal_positions", "sinusoidal_shift", "softmax", "symmetries", "tokenize",
    "wavelengths", "yarn_temperature",
]

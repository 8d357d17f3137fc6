"""posattn: the math of "The Position Problem" — self-attention is permutation equivariant.

Math modules need numpy only; ``posattn.plotting`` (matplotlib) and
``posattn.widgets`` (ipywidgets) are imported on demand, never here.
"""

from .attention import attention_loop, scaled_dot_product_attention, self_attention, softmax
from .embeddings import default_projections, embed, tokenize
from .permutations import (
    all_permutations,
    equivariance_error,
    invariance_error,
    inverse_permutation,
    permutation_matrix,
    permute,
    random_permutation,
)

__version__ = "0.1.0"

__all__ = [
    "all_permutations",
    "attention_loop",
    "default_projections",
    "embed",
    "equivariance_error",
    "invariance_error",
    "inverse_permutation",
    "permutation_matrix",
    "permute",
    "random_permutation",
    "scaled_dot_product_attention",
    "self_attention",
    "softmax",
    "tokenize",
]

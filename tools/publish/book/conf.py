"""Sphinx configuration of the series' book (tools/publish/build_book.py stages it beside the
pages).

The pages are the committed notebooks with their stored outputs: nothing is executed. Every
script a page loads is a local file in _static/ (the theme's, Sphinx's search, MathJax 2 copied
from the decks' npm folder, and the book's own), so the book opens from file:// with no network.
No page runs a widget (the explorer is a still picture), so no widget renderer is loaded.
"""

project = "The Position Problem"
copyright = "the series' authors, MIT licence"
html_title = project

# no script from a notebook's text; printed tables, figure links, search snippets from disk
extensions = ["myst_nb", "tools.publish.sanitize", "tools.publish.book.extension"]
root_doc = "index"
exclude_patterns = ["_build", "_notebooks", "**.ipynb_checkpoints"]
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_update_mathjax = False  # its settings are MathJax 3's; MathJax 2 finds \( \) and \[ \] itself
suppress_warnings = ["myst.header"]  # a notebook's "##" after "#" under an exercise is fine

nb_execution_mode = "off"  # the stored outputs are the book
nb_ipywidgets_js = {}  # no widget renderer, require.js or widget CDN: no page runs a widget

# MathJax 2.7.9, the decks' copy; Sphinx writes \( \), \[ \]
mathjax_path = "vendor/mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe"
mathjax2_config = {
    "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]],
                "processEscapes": True},
    "CommonHTML": {"linebreaks": {"automatic": True}},  # long formulas wrap on a phone
    "messageStyle": "none",
}

html_theme = "sphinx_book_theme"
html_favicon = "favicon.svg"  # P of "man bites dog"; without one, browsers ask the host for one
html_static_path = ["_static"]
# the search button, named by its own text (WCAG 2.5.3); the theme's asset macros without its
# icon-font script (tools/publish/build_book.py writes them there)
templates_path = ["_templates"]
html_css_files = ["book.css"]
html_js_files = ["book.js"]
html_copy_source = False  # each page links its committed .ipynb itself
html_show_sourcelink = False
html_show_search_summary = True  # snippets: from _static/book-pages.js (book/extension.py)
html_last_updated_fmt = None
html_context = {"default_mode": "light"}  # the theme's light/dark switch starts on light
html_theme_options = {
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "show_toc_level": 2,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "navigation_with_keys": True,
    "navbar_persistent": [],  # one search field, the sidebar's, not a second one in a top bar
    "footer_content_items": ["copyright.html"],
}

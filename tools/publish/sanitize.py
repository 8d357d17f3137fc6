"""Nothing a notebook holds runs as script in a deck or a book page (`make slides`, `make book`).

A forked or contributed notebook can carry script in its markdown, title, captions, notes, raw
cells, outputs and widget state. The builders show what JupyterLab shows of a notebook it does not
trust: HTML is rendered, then cleaned by bleach (the sanitiser behind nbconvert's own
`sanitize_html`) to an allowlist of tags and attributes, with no event handlers and links only to
web, mail and relative addresses; script outputs are not shown. Cleaning the rendered HTML, not
the markdown, keeps markdown and math as they are.

- `clean`: the policy; the decks' template filter `clean_html` (nbconvert's `sanitize_html` path).
- `safe_notebook`: outputs of harmless types only; stored widget state of the standard widget
  libraries only, HTML values cleaned (a widget from elsewhere would load its code from a CDN).
- `setup`: the book's Sphinx extension, cleaning every raw HTML node (markdown's HTML, `{raw}`,
  HTML outputs, raw cells) as soon as a page is read, so titles reach the sidebar clean.
- `literal_tags`: a presenter's note as text. A cue that names the token `<s>` means the three
  characters, not a strikethrough (markdown would take it for HTML, and the token would vanish):
  both builders write every tag of a notes cell, outside code and maths, as text. (Other markdown
  is rendered and cleaned, as JupyterLab shows it.)

Nothing is fetched from the web either (a tracking pixel, a page that would not work offline): an
image whose address is not the build's own (`http:`, `https:`, `//host`, any scheme but a data:
picture) shows as its alt text, in brackets, and CSS keeps no `url()` or `image-set()`.
"""

import html
import re
import secrets

import bleach
import tinycss2
from bleach.css_sanitizer import ALLOWED_CSS_PROPERTIES, CSSSanitizer
from bleach.html5lib_shim import Filter
from nbformat import NotebookNode

TAGS = frozenset(
    "a abbr b bdi bdo blockquote br caption cite code col colgroup dd del details dfn div dl dt "
    "em figcaption figure h1 h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p pre q s samp small span "
    "strong sub summary sup table tbody td tfoot th thead time tr u ul var wbr".split())
EVERY_TAG = ["class", "id", "title", "lang", "dir", "style"]  # no `name`: no nested clobbering
ATTRIBUTES = {"a": ["href"], "img": ["src", "alt", "width", "height"], "ol": ["start", "type"],
              "td": ["colspan", "rowspan", "align"], "th": ["colspan", "rowspan", "align", "scope"],
              "col": ["span"], "colgroup": ["span"], "details": ["open"], "blockquote": ["cite"],
              "q": ["cite"], "del": ["cite", "datetime"], "ins": ["cite", "datetime"],
              "time": ["datetime"]}
PICTURE = re.compile(r"data:image/(png|jpeg|gif|webp)[;,]", re.IGNORECASE)
# an address that leaves the build: a scheme (http:, https:, ftp:, …) or a host (//host, and the
# backslashed spellings browsers read as //host)
REMOTE = re.compile(r"\A(?:[a-z][a-z0-9+.-]*:|[/\\]{2})", re.IGNORECASE)
FETCHING = {"url", "src", "image", "image-set", "-webkit-image-set", "cross-fade", "element"}


# In markdown: a code span or fenced block, a formula, an autolink (kept as written), or the `<`
# that opens a tag, a comment or a declaration (written as text)
MARKDOWN_PARTS = re.compile(
    r"(?P<fence>^[ \t]*(?P<mark>`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*(?P=mark)[ \t]*$|\Z))"
    r"|(?P<code>(?P<ticks>`+).+?(?<!`)(?P=ticks)(?!`))"
    r"|(?P<math>\$\$.+?\$\$|(?<![\\$])\$[^$\n]+?\$)"
    r"|(?P<auto><[a-zA-Z][a-zA-Z0-9+.-]*:[^\s<>]*>)"
    r"|(?P<tag><(?=[a-zA-Z/!?]))",
    re.MULTILINE | re.DOTALL)


def literal_tags(markdown: str) -> str:
    """Markdown whose HTML tags show as text: each `<` that would open a tag becomes `&lt;`,
    except in code (spans and fenced blocks), in formulas and in autolinks (`<https://…>`).

    >>> literal_tags("causal, no <s> & `<s>` and $a<b$")
    'causal, no &lt;s> & `<s>` and $a<b$'
    """
    return MARKDOWN_PARTS.sub(lambda part: "&lt;" if part["tag"] else part[0], markdown)


def remote(address: str) -> bool:
    """True when an image at this address would be fetched from outside the build (a data:
    picture is not: it is in the page)."""
    address = re.sub(r"[\x00-\x20]+", "", address)
    return bool(REMOTE.match(address)) and not PICTURE.match(address)


def remote_image_text(alt: str) -> str:
    """What shows in place of an image from the web."""
    return f"[{alt}: an image on the web, not loaded]" if alt else \
        "[an image on the web, not loaded]"


def fetches(tokens) -> bool:
    """CSS that names a resource to fetch: url(…), image-set(…) and the like, at any depth."""
    for token in tokens or ():
        if token.type == "url" or (token.type == "function" and token.lower_name in FETCHING):
            return True
        if fetches(getattr(token, "arguments", None) or getattr(token, "content", None)):
            return True
    return False


class OfflineCSS(CSSSanitizer):
    """bleach's CSS sanitiser, without declarations that fetch (a `cursor: url(…)` pixel)."""

    def sanitize_css(self, style: str) -> str:
        declarations = tinycss2.parse_declaration_list(style)
        if any(d.type == "declaration" and fetches(d.value) for d in declarations):
            style = ";".join(tinycss2.serialize([d]) for d in declarations
                             if d.type == "declaration" and not fetches(d.value))
        return super().sanitize_css(style)


class RemoteImagesAsText(Filter):
    """An html5lib filter (after bleach's): an image from outside the build becomes its alt text
    in brackets, never a request."""

    def __iter__(self):
        for token in super().__iter__():
            attributes = token.get("data") or {}
            source = attributes.get((None, "src"), "") if isinstance(attributes, dict) else ""
            if token.get("type") in {"StartTag", "EmptyTag"} and token.get("name") == "img" \
                    and remote(source):
                alt = html.unescape(attributes.get((None, "alt"), "")).strip()
                yield {"type": "Characters", "data": remote_image_text(alt)}
                continue
            yield token


CSS = OfflineCSS(allowed_css_properties=ALLOWED_CSS_PROPERTIES | {"gap", "margin", "padding"})
# what a built page shows of an output; script (application/javascript) and unknown types go
OUTPUTS = {"text/plain", "text/html", "text/markdown", "text/latex", "image/png", "image/jpeg",
           "image/gif", "image/svg+xml", "application/vnd.jupyter.widget-view+json"}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_LIBRARIES = {"@jupyter-widgets/base", "@jupyter-widgets/controls", "@jupyter-widgets/output"}
OUTPUT_WIDGET = {"text/plain", "image/png", "image/jpeg"}  # an Output widget's HTML would run
# a widget view as myst-nb writes it: data for the widget renderer, never run
VIEW_SCRIPT = re.compile(r'<script type="application/vnd\.jupyter\.widget-view\+json">[^<]*'
                         r"</script>\s*\Z")


def allowed(tag: str, name: str, value: str) -> bool:
    """An attribute bleach may keep; data: addresses only as an image's picture."""
    if name not in EVERY_TAG and name not in ATTRIBUTES.get(tag, ()):
        return False
    picture = tag == "img" and name == "src" and PICTURE.match(value.strip())
    return picture or not re.sub(r"[\x00-\x20]+", "", value).lower().startswith("data:")


def cleaner(tags: frozenset = TAGS) -> bleach.Cleaner:
    return bleach.Cleaner(tags=tags, attributes=allowed, protocols={"http", "https", "mailto",
                                                                     "data"}, css_sanitizer=CSS,
                          filters=[RemoteImagesAsText])


CLEANER = cleaner()


def clean(html: str | bytes) -> str:
    """HTML as JupyterLab shows an untrusted notebook's: disallowed tags escaped, handlers gone.

    >>> clean('<p onclick="steal()">Hi <script>steal()</script></p>')
    '<p>Hi &lt;script&gt;steal()&lt;/script&gt;</p>'
    """
    return CLEANER.clean(html.decode() if isinstance(html, bytes) else str(html))


def safe_widget_state(models: dict) -> None:
    """Only the standard widget libraries' models; what they draw as HTML, cleaned."""
    for model_id, model in list(models.items()):
        state = model.get("state", {})
        if not {model.get("model_module"), state.get("_view_module")} - {None} <= WIDGET_LIBRARIES:
            del models[model_id]  # its code would come from a CDN
            continue
        if model.get("model_name") in {"HTMLModel", "HTMLMathModel"} and "value" in state:
            state["value"] = clean(state["value"])
        if state.get("description_allow_html") and "description" in state:
            state["description"] = clean(state["description"])
        for output in state.get("outputs", []):  # an Output widget's
            for mime in [mime for mime in output.get("data", {}) if mime not in OUTPUT_WIDGET]:
                del output["data"][mime]


def safe_notebook(nb: NotebookNode, resources: dict | None = None) -> tuple[NotebookNode, dict]:
    """The notebook with only harmless outputs and widget state (an nbconvert preprocessor)."""
    models = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    safe_widget_state(models)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            for mime in [mime for mime in data if mime not in OUTPUTS]:
                del data[mime]
            if WIDGET_VIEW in data and data[WIDGET_VIEW].get("model_id") not in models:
                del data[WIDGET_VIEW]  # the text/plain fallback shows, as in JupyterLab
    return nb, resources or {}


def untrusted(node) -> bool:
    """A raw HTML node of a page, but for a widget view's data."""
    from docutils import nodes

    return (isinstance(node, nodes.raw) and "html" in node.get("format", "").split()
            and not VIEW_SCRIPT.match(node.astext()))


def clean_siblings(parent) -> None:
    """A node's raw HTML children cleaned as one piece of HTML, the other children held in its
    place by a slot element (so `<span>` … `</span>` around markdown stays one element). When the
    cleaned HTML has not kept each slot once, as an element, each child is cleaned on its own."""
    from docutils import nodes

    slot = f"pp-slot-{secrets.token_hex(8)}"
    marker = f"<{slot}></{slot}>"
    kept = [child for child in parent.children if not untrusted(child)]
    pieces = cleaner(TAGS | {slot}).clean("".join(
        child.astext() if untrusted(child) else marker for child in parent.children)).split(marker)
    if len(pieces) != len(kept) + 1 or any(slot in piece for piece in pieces):
        for child in filter(untrusted, parent.children):
            child[:] = [nodes.Text(clean(child.astext()))]
        return
    shown = [nodes.raw("", pieces[0], format="html")]
    for child, piece in zip(kept, pieces[1:], strict=True):
        shown += [child, nodes.raw("", piece, format="html")]
    parent[:] = [node for node in shown if not isinstance(node, nodes.raw) or node.astext()]


def clean_raw_html(app, doctree) -> None:
    """Every raw HTML node of a page cleaned, and no `<meta>` (Sphinx's doctree-read)."""
    from docutils import nodes

    for meta in list(doctree.findall(nodes.meta)):  # `.. meta::` could send the reader away
        meta.parent.remove(meta)
    parents = {id(node.parent): node.parent for node in doctree.findall(untrusted)}
    for parent in parents.values():
        raws = [child for child in parent.children if untrusted(child)]
        if len(raws) == 1:  # in place, keeping its classes (an output's)
            raws[0][:] = [nodes.Text(clean(raws[0].astext()))]
        else:
            clean_siblings(parent)


def setup(app) -> dict:
    """The book's extension: pages cleaned as read, before their titles go to the sidebar."""
    app.connect("doctree-read", clean_raw_html, priority=100)  # the collectors run at 500
    return {"parallel_read_safe": True, "parallel_write_safe": True}

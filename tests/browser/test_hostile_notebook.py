"""A notebook's text never runs as script: a hostile notebook in the built decks and book.

A forked or contributed notebook can carry script in its markdown, its title, a figure's caption,
its presenter notes, its raw cells, its stored outputs and its stored widget state. Here one such
notebook joins a temporary copy of the series, as its last notebook (so its title is also the
"Next:" of the deck before it and an entry in every book page's sidebar). Its decks and the whole
book are built from that copy and opened in Chromium, offline; on every page each inline handler
is fired, each `javascript:` link clicked and each form submitted. No vector may set its flag
(`window.pwned_<name>`), open a dialog or ask for a file outside the build, and no element of the
content may keep an `on…` attribute or a `javascript:` URL. Then the book is served over HTTP on
127.0.0.1 and every file of it a browser can run (each page, each SVG figure behind its "open
full size" link) is opened on its own: no flag is set, nothing is written to the book's
localStorage, and no request leaves 127.0.0.1 (a tracking pixel in the markdown is not fetched).
"""

import shutil
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

from tools.publish import build_book, build_slides

try:
    from playwright.sync_api import Error as PlaywrightError
except ImportError:  # the browser fixture then skips (or fails, in CI)
    PlaywrightError = Exception

from tests.launchers import serving
from tools.run.lab_driver import NOTEBOOKS

from .jlab import browser_required

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:.*Check CHANGES for Sphinx API modifications"),
]
HOSTILE = "11_hostile_contribution"
SECRET = "pp-a-file-of-the-machine-that-builds"  # what no page may show
HTML = "text/html"
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAAB"
       "JRU5ErkJggg==")  # one pixel: a figure for the caption to describe


def flag(name: str) -> str:
    """The statement a vector runs: it sets window.pwned_<name> (and is void, or a javascript: URL
    would replace the page with its value)."""
    return f"void(window.pwned_{name}=1)"


# markdown a contributor can write, each line a way into script (the classic ones and a few
# that get past naive filters)
TRACKER = "http://example.invalid/track.png"  # a tracking pixel: no build may fetch it
STORAGE = "localStorage.setItem('pwned_storage', 1)"  # in the book's origin, for every page
MARKDOWN = "\n\n".join([
    f"<script>{flag('md_script')}</script>",
    f'<img src="x" onerror="{flag("md_img_onerror")}">',
    f'<svg onload="{flag("md_svg_onload")}"><circle r="1"/></svg>',
    '<iframe srcdoc="&lt;script&gt;parent.pwned_md_iframe=1&lt;/script&gt;"></iframe>',
    f'<a href="javascript:{flag("md_html_js_link")}">a link</a>',
    f"[a markdown link](javascript:{flag('md_markdown_js_link')})",
    f'<details open ontoggle="{flag("md_ontoggle")}"><summary>more</summary>text</details>',
    f'<style onload="{flag("md_style_onload")}">p {{ background: url(javascript:'
    f'{flag("md_style_url")}) }}</style>',
    f'<form action="javascript:{flag("md_form")}"><button>Send</button></form>',
    f'<meta http-equiv="refresh" content="0;url=javascript:{flag("md_meta_refresh")}">',
    f'<object data="javascript:{flag("md_object")}"></object>',
    f'<math><mtext><table><mglyph><style><img src=x onerror="{flag("md_mxss")}">'
    "</style></mglyph></table></mtext></math>",
    f'<input autofocus onfocus="{flag("md_onfocus")}">',
    f'<p><span style="color: red" onmouseover="{flag("md_onmouseover")}">red</span></p>',
    f'<img src="{TRACKER}" alt="a tracker">', f"![a pixel]({TRACKER})",  # fetched: a request
    f'<p style="cursor: url({TRACKER}), auto">hover</p>',
])
RAW_TEX_LINK = r"$\href{javascript:window.pwned_mathjax_href=1}{x}$"  # MathJax's Safe extension


def widget_state() -> tuple[dict, dict]:
    """Stored widget state with an HTML widget whose value is script, and a model from a widget
    library the series does not use (its code would come from a CDN); and the HTML widget's view."""
    from ipywidgets import HTML
    from ipywidgets.embed import embed_data

    html = HTML(f'<img src="x" onerror="{flag("widget_html")}">')
    data = embed_data(views=[html])
    state = data["manager_state"]
    html.close()
    state["state"]["ffffffffffffffffffffffffffffffff"] = {
        "model_module": "pp-hostile-widgets", "model_module_version": "9.9.9",
        "model_name": "HostileModel", "state": {"_view_module": "pp-hostile-widgets",
                                                "_view_module_version": "9.9.9",
                                                "_view_name": "HostileView"}}
    return state, data["view_specs"][0]


def hostile_notebook(ran: Path, secret: Path) -> nbformat.NotebookNode:
    """The contributed notebook: script everywhere the builders take text from, code that writes
    the file `ran` if a builder executes it, and directives that would show the file `secret`."""
    secret = "../" * 30 + str(secret).lstrip("/")  # docutils reads "/…" from the source folder
    state, view = widget_state()
    foreign = {**view, "model_id": "ffffffffffffffffffffffffffffffff"}
    figure = new_code_cell("plot()", outputs=[new_output(
        "display_data", {"image/png": PNG, "text/plain": "<Figure>"})])
    outputs = [
        new_output("display_data", {"text/html": f'<img src="x" onerror="{flag("out_html")}">'
                                                 f"<script>{flag('out_html_script')}</script>",
                                    "text/plain": "html"}),
        new_output("display_data", {"application/javascript": flag("out_javascript"),
                                    "text/plain": "js"}),
        new_output("display_data", {"text/markdown": f'<img src=x onerror="{flag("out_md")}">',
                                    "text/plain": "md"}),
        new_output("display_data", {"image/svg+xml": f'<svg xmlns="http://www.w3.org/2000/svg" '
                                    f'onload="{flag("out_svg")}"><script>{flag("out_svg_script")};'
                                    f"{STORAGE}</script></svg>", "text/plain": "svg"}),
        new_output("display_data", {"text/latex": RAW_TEX_LINK, "text/plain": "latex"}),
        new_output("stream", name="stdout", text=f"<script>{flag('out_stream')}</script>"),
        new_output("error", ename="E", evalue=f"<img src=x onerror={flag('out_error')}>",
                   traceback=[f"<script>{flag('out_traceback')}</script>"]),
        new_output("display_data", {"application/vnd.jupyter.widget-view+json": view,
                                    "text/plain": "HTML()"}),
        new_output("display_data", {"application/vnd.jupyter.widget-view+json": foreign,
                                    "text/plain": "HostileWidget()"}),
    ]
    notes = new_markdown_cell(f'Presenter notes. <img src=x onerror="{flag("notes")}">')
    notes.metadata["slideshow"] = {"slide_type": "notes"}
    deck_notes = new_markdown_cell(f'## Deck notes\n\n<img src=x onerror="{flag("deck_notes")}">')
    deck_notes.metadata.update(slideshow={"slide_type": "slide"}, tags=["deck-notes"])
    figure.metadata["tags"] = [f'x" onmouseover="{flag("cell_tag")}']
    cells = [
        new_markdown_cell(f'# A contribution <img src=x onerror="{flag("title")}">\n\n'
                          "**What you will learn**\n- nothing"),
        new_code_cell(f"import pathlib\npathlib.Path({str(ran)!r}).write_text('ran')"),
        new_markdown_cell(f"## Markdown\n\n{MARKDOWN}\n\n{RAW_TEX_LINK}"),
        figure,
        new_markdown_cell(f'*Figure:* A pixel <img src=x onerror="{flag("caption")}">. Its alt '
                          f'text: x" onerror="{flag("alt")}" y=". And more.'),
        notes, deck_notes,
        new_raw_cell(f"<script>{flag('raw_html')}</script>", metadata={"raw_mimetype": HTML}),
        new_raw_cell(f'<img src=x onerror="{flag("raw")}">'),
        new_raw_cell(f'<img src=x onerror="{flag("raw_format")}">', metadata={"format": HTML}),
        new_raw_cell(flag("raw_javascript"), metadata={"format": "application/javascript"}),
        new_code_cell("show()", outputs=outputs),
        new_markdown_cell(f"```{{raw}} html\n<script>{flag('myst_raw')}</script>\n```\n\n"
                          f"```{{eval-rst}}\n.. raw:: html\n\n   <script>{flag('myst_rst_raw')}"
                          "</script>\n\n.. meta::\n   :http-equiv=refresh: 0; url=https://example"
                          f".invalid/\n```\n\n<img src=\"{secret}\">"),  # (an include: refused)
        new_markdown_cell("## Summary\n\n- the summary"),
    ]
    for cell in cells[1:]:
        if cell.cell_type == "markdown" and cell.source.startswith("#"):
            cell.metadata.setdefault("slideshow", {"slide_type": "slide"})
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"}})
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": state}
    nb.metadata["title"] = f'</title><script>{flag("metadata_title")}</script>'
    nb.metadata["mystnb"] = {"execution_mode": "force"}  # myst-nb would run it while building
    nb.metadata["myst"] = {"html_meta": {"http-equiv=refresh": "0; url=https://example.invalid/"}}
    return nb


SETTLED = "() => [...document.images].every(img => img.complete)"
WIDGETS_DRAWN = """() => document.querySelectorAll(
  'script[type="application/vnd.jupyter.widget-view+json"]').length
  <= document.querySelectorAll('.jupyter-widgets.widget-container, .jupyter-widgets.widget-html')
  .length"""
# Fire every inline handler in the page, click every javascript: link, submit every form; then
# say which flags were set, and which content elements still carry a handler or a script URL.
PROBE = r"""async (content) => {
  const urls = ['href', 'src', 'action', 'data', 'formaction', 'xlink:href', 'srcdoc'];
  const all = [...document.querySelectorAll(content)].flatMap(r => [r, ...r.querySelectorAll('*')]);
  for (const el of all) for (const a of [...el.attributes]) {
    if (a.name.startsWith('on')) try { el.dispatchEvent(new Event(a.name.slice(2))); } catch (e) {}
  }
  const script = (el, name) => /^\s*javascript:/i.test(el.getAttribute(name) || '');
  for (const a of all.filter(el => el.matches('a[href]') && script(el, 'href'))) a.click();
  for (const form of all.filter(el => el.matches('form') && script(el, 'action')))
    try { form.requestSubmit(); } catch (e) {}
  await new Promise(resolve => setTimeout(resolve, 300));
  const left = [];
  for (const el of all) for (const a of [...el.attributes])
      if (a.name.startsWith('on') || (urls.includes(a.name) && script(el, a.name)))
        left.push(`<${el.tagName.toLowerCase()} ${a.name}="${a.value.slice(0, 40)}">`);
  return {ran: Object.keys(window).filter(k => k.startsWith('pwned_')).sort(), left};
}"""


def series_with_a_hostile_notebook(root: Path) -> Path:
    """A temporary copy of notebooks/ with the hostile notebook as its last one."""
    notebooks = root / "notebooks"
    shutil.copytree(NOTEBOOKS, notebooks)
    (root / "secret.txt").write_text(SECRET, encoding="utf-8")
    nbformat.write(hostile_notebook(root / "ran", root / "secret.txt"),
                   notebooks / f"{HOSTILE}.ipynb")
    return notebooks


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """The last two decks and the whole book, built from the copy with the hostile notebook."""
    root = tmp_path_factory.mktemp("hostile")
    notebooks = series_with_a_hostile_notebook(root)
    decks = sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))[-2:]  # its own, and the one before
    try:
        build_slides.build(decks, root / "slides")
        build_book.build(root / "book", notebooks)
    except build_slides.AssetsUnavailable as error:
        (pytest.fail if browser_required() else pytest.skip)(str(error))
    pages = {f"deck {path.stem}": root / "slides" / f"{path.stem}.slides.html" for path in decks}
    pages |= {f"book {path.stem}": path for path in sorted((root / "book").glob("*.html"))}
    return {"root": root, **pages}


def probe(browser, page_file: Path, content: str, ready: str) -> dict:
    """Open one built page, fire everything in it, and say what ran and what was asked for."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    seen = {"dialogs": [], "requests": []}
    page.on("dialog", lambda dialog: (seen["dialogs"].append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: seen["requests"].append(request.url))
    try:
        page.goto(page_file.as_uri())
        page.wait_for_selector(ready, state="attached", timeout=30_000)
        page.wait_for_load_state("load")
        page.wait_for_function(SETTLED, timeout=30_000)  # broken images have reported
        try:  # widgets draw (a view whose model is missing never does)
            page.wait_for_function(WIDGETS_DRAWN, timeout=5_000)
        except PlaywrightError:
            pass
        found = page.evaluate(PROBE, content)
        found["secret"] = SECRET in page.content()
        if page.url.split("#")[0] != page_file.as_uri():  # a refresh, a script's URL
            found["ran"].append(f"left the page for {page.url}")
    except PlaywrightError as error:  # the page went elsewhere (a refresh, a script's URL)
        found = {"ran": [f"left the page for {page.url}: {error.message[:80]}"], "left": [],
                 "secret": False}
    finally:
        context.close()
    return {**found, **seen}


def report(browser, built: dict) -> dict[str, dict]:
    """What every built page let through."""
    found = {}
    for name, path in built.items():
        if name == "root":
            continue
        deck = name.startswith("deck")
        found[name] = probe(browser, path, ".reveal .slides" if deck else "main, nav, aside",
                            ".reveal.ready" if deck else "body")
    return found


def test_no_injected_script_runs_in_the_decks_or_the_book(browser, built):
    found = report(browser, built)
    root = built["root"].as_uri()
    local = (root, "data:", "blob:", "about:")
    ran = {name: f["ran"] for name, f in found.items() if f["ran"]}
    dialogs = {name: f["dialogs"] for name, f in found.items() if f["dialogs"]}
    left = {name: f["left"] for name, f in found.items() if f["left"]}
    away = {name: [url for url in f["requests"] if not url.startswith(local)]
            for name, f in found.items()}
    assert ran == {}, f"injected script ran: {ran}"
    assert dialogs == {}, f"dialogs opened: {dialogs}"
    assert left == {}, f"handlers or script URLs left in the content: {left}"
    assert {name: urls for name, urls in away.items() if urls} == {}, "a request left the build"
    assert not (built["root"] / "ran").exists(), "a builder ran the notebook's code"
    assert [name for name, f in found.items() if f["secret"]] == [], "a page shows a local file"


def test_the_series_figures_show_and_the_hostile_markup_reads_as_text(browser, built):
    """The cleaning keeps the series' figures (the explorer's page: its still picture of a shuffle
    and the difference maps); the hostile notebook's script shows as the text it is, as in
    JupyterLab."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(built[next(name for name in built if "book" in name and "explorer" in name)]
                  .as_uri())
        page.wait_for_function("() => [...document.images].every(img => img.complete)")
        still = page.locator("main img[alt^='the explorer opens on one shuffle']").count()
        images = page.evaluate("() => [...document.images].filter(i => i.naturalWidth).length")
        page.goto(built[f"book {HOSTILE}"].as_uri())
        text = page.locator("main").inner_text()
    finally:
        context.close()
    assert still == 1, "the explorer's still picture is gone"
    assert images >= 2, "the explorer's page lost a figure"
    assert f"<script>{flag('md_script')}</script>" in text


@pytest.fixture(scope="module")
def served_book(built):
    """The hostile book over HTTP on 127.0.0.1: yields its URL."""
    with serving(built["root"] / "book") as url:
        yield url


def test_every_published_file_a_browser_runs_runs_no_script_over_http(browser, built,
                                                                       served_book):
    book = built["root"] / "book"
    runnable = sorted(path.relative_to(book).as_posix() for path in book.rglob("*")
                      if path.is_file() and build_book.runnable(path)
                      and path.relative_to(book).parts[0] != "_static")
    figures = [name for name in runnable if name.startswith("_images/") and name.endswith(".svg")]
    linked = (book / f"{HOSTILE}.html").read_text(encoding="utf-8")
    assert figures and all(f'href="{name}"' in linked for name in figures), figures
    context = browser.new_context()
    page = context.new_page()
    requests, ran = [], {}
    page.on("request", lambda request: requests.append(request.url))
    try:
        for name in runnable:
            page.goto(served_book + name)
            page.wait_for_load_state("load")
            page.wait_for_timeout(100)
            flags = page.evaluate("() => Object.keys(window).filter(k => k.startsWith('pwned_'))")
            if flags:
                ran[name] = flags
        page.goto(served_book + "index.html")
        stored = page.evaluate("() => Object.keys(localStorage).filter(k => k.startsWith('pwned'))")
    finally:
        context.close()
    assert ran == {}, f"script ran in published files: {ran}"
    assert stored == [], f"a published file wrote the book's localStorage: {stored}"
    away = [url for url in requests if not url.startswith(("http://127.0.0.1:", "data:"))]
    assert away == [], f"requests left 127.0.0.1: {away}"

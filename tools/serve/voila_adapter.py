"""Voilà for `make present`: only the slide assets as files, local Host, bad paths 404, clean exit.

tools.serve.servers runs it in its own process (PresentVoila.instance(), initialize(argv), start()),
on the sockets it bound (tools.serve.servers.bind): Voilà's own port search is not used. What it
changes inside Voilà, jupyter_server and tornado is listed at the end (OVERRIDES, RELIES_ON), each
checked against the installed release by tests/test_server_adapters.py.

- With auto_token on and no JUPYTER_TOKEN, Voilà's identity provider makes a random token.
- /voila/files/ serves build/slides/vendor/ and nothing else: tornado normalises the path (`..`,
  `%2f`) and refuses one outside that folder. (Voilà's allowlist is a regex on the raw path.)
- Every handler refuses a request whose Host header is not this machine (a DNS-rebinding page),
  as Jupyter's own handlers do; Voilà turns that check off.
- A static path that cannot name a file (a NUL byte, `..%2f` out of a template's folder) is a
  404: Voilà's handlers would raise on it, which tornado answers with a 500 and a traceback. So is
  any path with a NUL byte (the notebook's handler would redirect to it: an unsafe header, a 500),
  and /logout: jupyter_server's logout page needs a setting Voilà's application lacks (a 500), and
  a deck whose token and cookies end with the server has no use for it.
- A path that is no UTF-8 text once %-decoded (/%ff%fe) is a 400 with one line, ahead of every
  handler (tools.serve.jupyter_adapter.NOT_TEXT_RULE): tornado's own answer was empty, logged with
  tracebacks.
- The kernels' connection files go to the launcher's runtime folder (tools/serve/runtime.py), not to
  the temp folder: a killed launcher's files are then removed by the next one.
- Each load of the deck starts a kernel for that page (about 115 MiB for the explorer's deck), and
  the kernels go with their pages (PageKernels). The bound: at most PAGE_KERNELS (8) kernels run
  at once, about 1 GB: a load beyond that first shuts down the longest-idle kernels that no page
  holds, and is refused (a 503, one line) only if every one is held by an open page (the deck
  open in 8 tabs or windows at once). A page's kernel is shut
  down CLOSED_GRACE (2) seconds after its page's last websocket closes (the page was closed or
  reloaded, or the browser ended), even when Voilà's own shutdown on `beforeunload` does not
  come. A kernel whose page never connects (a plain HTTP load: curl, a link preview) is shut down
  once it has been idle UNCONNECTED (15) seconds, checked every CULL_EVERY (5): gone within 20 s
  of its last output (jupyter_server's culler, cull_connected off: a held kernel is never
  culled, however long the presenter talks).
- A page's kernel never sees the token: Voilà gives a kernel its page's request in QUERY_STRING
  and VOILA_REQUEST_URL (for the notebook to read), with the token the page was opened with in
  them; the token is taken out of both, and any other variable that holds it is left out.
- The signals in stop_on (tools.serve.servers: SIGINT, SIGTERM, SIGHUP) stop it: the kernels are
  shut down, then their connection files' folder goes. nbclient, which runs each notebook, puts its
  own handlers on SIGINT and SIGTERM for the run and then sets them back to their default action
  (asyncio's add_signal_handler, remove_signal_handler): a later SIGTERM would end Voilà at once,
  leaving voila_*/kernel-*.json behind, and one during a run would stop only that run. So nbclient's
  handlers are not added for these signals; the server's own stay.
"""

import asyncio
import shutil
import signal
from contextlib import suppress
from http.client import responses
from urllib.parse import parse_qsl, unquote_to_bytes, urlencode, urlsplit

import tornado.httpserver
import tornado.ioloop
import tornado.web
from jupyter_core.paths import jupyter_runtime_dir
from jupyter_core.utils import run_sync
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from nbclient import NotebookClient
from traitlets import Instance, TraitError, default
from voila.app import Voila
from voila.handler import VoilaHandler
from voila.static_file_handler import AllowListFileHandler

from tools.publish.build_slides import VENDOR
from tools.serve.jupyter_adapter import NOT_TEXT_RULE

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
PAGE_KERNELS = 8  # at most this many kernels at once, one per open page of the deck
CLOSED_GRACE = 2  # seconds from a page's last websocket closing to its kernel's shutdown
UNCONNECTED = 15  # seconds idle after which a kernel no page holds is culled
CULL_EVERY = 5  # seconds between the culler's looks
FULL = ("Open pages of the deck must be at most {0} (each runs a kernel); got one more while {0} "
        "are open. Close a tab or window of the deck, then reload this page.")


def without_token(text: str, token: str) -> str:
    """A query string or URL with its token= parameters taken out."""
    parts = urlsplit(text) if "://" in text else None
    query = parts.query if parts else text
    kept = urlencode([(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != "token"])
    return parts._replace(query=kept).geturl() if parts else kept


class PageKernels(AsyncMappingKernelManager):
    """The deck's kernels, one per page load, bounded (see above)."""

    @default("cull_idle_timeout")
    def _cull_unconnected(self) -> int:
        return UNCONNECTED

    @default("cull_interval")
    def _cull_every(self) -> int:
        return CULL_EVERY

    room = Instance(asyncio.Lock, args=())  # one kernel start at a time: the bound holds

    async def start_kernel(self, *args, **kwargs) -> str:
        token = self.parent.identity_provider.token if self.parent else ""
        env = dict(kwargs.get("env") or {})
        for name in ("QUERY_STRING", "VOILA_REQUEST_URL"):
            if name in env and token:
                env[name] = without_token(env[name], token)
        kwargs["env"] = {k: v for k, v in env.items() if not (token and token in v)}
        async with self.room:
            if not await self.make_room():
                raise tornado.web.HTTPError(503, FULL.format(PAGE_KERNELS))
            return await super().start_kernel(*args, **kwargs)

    async def make_room(self) -> bool:
        """Whether one more kernel may start: the longest-idle kernels no page holds (no
        websocket, not busy) are shut down while PAGE_KERNELS run."""
        idle = {k: self.idle_since(k) for k in self.list_kernel_ids() if not self.held(k)}
        spare = sorted((k for k, since in idle.items() if since is not None), key=idle.get)
        while len(self.list_kernel_ids()) >= PAGE_KERNELS and spare:
            await self.shutdown_kernel(spare.pop(0))
        return len(self.list_kernel_ids()) < PAGE_KERNELS

    async def cull_kernel_if_idle(self, kernel_id: str) -> None:
        # not one a closed page or make_room shut down meanwhile, nor one still starting (no
        # last activity yet: jupyter_server's culler would log a TraitError for it)
        if kernel_id in self and self.idle_since(kernel_id) is not None:
            with suppress(KeyError):  # shut down meanwhile, while the culler waited
                await super().cull_kernel_if_idle(kernel_id)

    def idle_since(self, kernel_id: str):
        """When the kernel last did something, if it is idle now; None if busy or starting."""
        kernel = self.get_kernel(kernel_id)
        try:
            return None if kernel.execution_state == "busy" else kernel.last_activity
        except (AttributeError, TraitError):  # starting: not marked yet
            return None

    def held(self, kernel_id: str) -> bool:
        """Whether an open page holds the kernel: a websocket to it is open (its model's
        "connections", as /api/kernels shows it). One still starting has no model yet: held."""
        try:
            return self.kernel_model(kernel_id)["connections"] > 0
        except (AttributeError, TraitError):  # starting: no last activity or state yet
            return True

    def notify_disconnect(self, kernel_id: str) -> None:
        super().notify_disconnect(kernel_id)
        if kernel_id in self and not self.held(kernel_id):  # its page is gone, or going
            tornado.ioloop.IOLoop.current().call_later(CLOSED_GRACE, self.let_go, kernel_id)

    async def let_go(self, kernel_id: str) -> None:
        if kernel_id in self and not self.held(kernel_id):  # no page came back to it
            self.log.info("Kernel %s: its page closed; shutting it down", kernel_id)
            await self.shutdown_kernel(kernel_id)


def page_limited(handler: type[VoilaHandler]) -> type[VoilaHandler]:
    """The deck's handler, answering a load beyond the bound with a 503 and one line."""

    class PageLimited(handler):
        async def prepare(self):
            await super().prepare()
            if self._finished or (self.path_args and self.path_args[0]):  # only the deck
                return None
            manager = self.kernel_manager
            if isinstance(manager, PageKernels) and not await manager.make_room():
                self.set_status(503)
                self.set_header("Content-Type", "text/plain; charset=UTF-8")
                return self.finish(FULL.format(PAGE_KERNELS) + "\n")
            return None

    return PageLimited


def local_only(handler: type[tornado.web.RequestHandler]) -> type[tornado.web.RequestHandler]:
    """handler, refusing (403) a request whose Host header is not this machine, and answering
    one whose path holds a NUL byte with a 404."""

    class LocalOnly(handler):
        def prepare(self):  # answered here: Jupyter's error pages need settings Voilà lacks
            if self.request.host_name not in LOCAL_HOSTS:
                self.set_status(403)
                return self.finish(f"Host must be local; got {self.request.host!r}.")
            if b"\0" in unquote_to_bytes(self.request.path):  # names no file, no notebook
                self.set_status(404)
                return self.finish("404: Not Found\n")
            return super().prepare()

    return LocalOnly


def files_or_404(handler: type[tornado.web.StaticFileHandler]) -> type:
    """A static-file handler whose bad paths are a 404 rather than an exception (a 500)."""

    class FilesOr404(handler):
        async def get(self, path: str, include_body: bool = True) -> None:
            if "\0" in path:
                raise tornado.web.HTTPError(404)
            try:
                return await super().get(path, include_body)
            except (ValueError, AssertionError, OSError):  # the path names no file it can serve
                raise tornado.web.HTTPError(404) from None

        def write_error(self, status_code: int, **kwargs) -> None:
            """Plain text: Jupyter's error page needs a setting Voilà's application lacks."""
            self.set_header("Content-Type", "text/plain; charset=UTF-8")
            self.finish(f"{status_code}: {responses.get(status_code, 'Error')}\n")

    return FilesOr404


class PresentVoila(Voila):
    announce = None  # called with (port, token) once the server listens (tools.serve.servers)
    stop_on: tuple = ()  # the signals that stop the server
    sockets: list = []  # listening sockets, bound by the launcher

    @default("connection_dir_root")
    def _in_the_runtime_dir(self) -> str:
        return jupyter_runtime_dir()  # the launcher's own folder (tools/serve/runtime.py)

    def initialize(self, argv=None) -> None:
        super().initialize(argv)
        self.voila_configuration.multi_kernel_manager_class = PageKernels

    def init_handlers(self) -> list:
        rules = [NOT_TEXT_RULE]  # a path that is no text: a 400, one line (jupyter_adapter.py)
        for pattern, handler, *options in super().init_handlers():
            if handler is AllowListFileHandler:
                handler, options = tornado.web.StaticFileHandler, [{"path": str(VENDOR)}]
            if handler is self.identity_provider.logout_handler_class:
                handler, options = tornado.web.ErrorHandler, [{"status_code": 404}]
            if issubclass(handler, tornado.web.StaticFileHandler):
                handler = files_or_404(handler)
            if issubclass(handler, VoilaHandler):
                handler = page_limited(handler)
            rules.append((pattern, local_only(handler), *options))
        return rules

    def start(self):
        loop = tornado.ioloop.IOLoop.current()  # the loop listen() runs
        if self.announce is not None:  # runs once the loop is running: after listen() bound
            loop.add_callback(lambda: self.announce(self.port, self.identity_provider.token))
        for sig in self.stop_on:
            signal.signal(sig, lambda *_: loop.add_callback_from_signal(loop.stop))
        add = loop.asyncio_loop.add_signal_handler

        def add_unless_ours(sig, callback, *args) -> None:  # nbclient's, for each notebook run
            if sig not in self.stop_on:
                add(sig, callback, *args)

        loop.asyncio_loop.add_signal_handler = add_unless_ours
        super().start()  # listen(), run the loop until stopped, then stop()

    def listen(self):
        """Voilà's listen(), on the launcher's sockets: serve until the loop stops, then stop()."""
        self.port = self.sockets[0].getsockname()[1]
        tornado.httpserver.HTTPServer(self.app).add_sockets(self.sockets)
        self.ioloop = tornado.ioloop.IOLoop.current()
        try:
            self.ioloop.start()
        finally:
            self.stop()

    def stop(self):
        run_sync(self.kernel_manager.shutdown_all)()
        shutil.rmtree(self.connection_dir, ignore_errors=True)


# What this module overrides inside Voilà, jupyter_server and tornado, where no configuration
# reaches: (the class, the method, its parameters, why). tests/test_server_adapters.py checks each
# against the installed release, and that the adapted classes override nothing else.
OVERRIDES = (
    (Voila, "initialize", ("self", "argv"),
     "the deck's kernels are PageKernels (VoilaConfiguration.multi_kernel_manager_class, public "
     "configuration, set once Voilà has made its configuration object from argv)"),
    (Voila, "init_handlers", ("self",),
     "only build/slides/vendor/ as files (Voilà's allowlist is a regex on the raw path), no "
     "/logout, and every handler wrapped: local Host, bad paths a 404, the bound on kernels"),
    (Voila, "start", ("self",),
     "the URL announced once it listens, the launcher's signals, and nbclient's signal handlers "
     "kept off those signals"),
    (Voila, "listen", ("self",), "listen on the launcher's sockets, not Voilà's port search"),
    (Voila, "stop", ("self",),
     "the kernels shut down before their connection files' folder goes, whatever is left in it"),
    (AsyncMappingKernelManager, "start_kernel", ("self", "kernel_id", "path", "kwargs"),
     "the bound on kernels, and the token taken out of the kernel's environment"),
    (AsyncMappingKernelManager, "cull_kernel_if_idle", ("self", "kernel_id"),
     "a kernel shut down meanwhile (its page closed) is not culled again"),
    (AsyncMappingKernelManager, "notify_disconnect", ("self", "kernel_id"),
     "a page's kernel goes CLOSED_GRACE seconds after its last websocket closes"),
    (JupyterHandler, "prepare", ("self", "_redirect_to_login"),
     "a load of the deck beyond the bound is a 503 with one line (page_limited)"),
    (tornado.web.RequestHandler, "prepare", ("self",),
     "a foreign Host header is a 403, a NUL byte a 404 (local_only)"),
    (tornado.web.StaticFileHandler, "get", ("self", "path", "include_body"),
     "a path that names no file is a 404, not a 500 (files_or_404)"),
    (tornado.web.RequestHandler, "write_error", ("self", "status_code", "kwargs"),
     "plain text: Jupyter's error page needs a setting Voilà's application lacks"),
)
# What this module relies on in their code, without overriding it: (the class, the method, text
# its source must hold, why). Checked as OVERRIDES are.
RELIES_ON = (
    (Voila, "init_handlers", "AllowListFileHandler",
     "Voilà serves files through AllowListFileHandler, which init_handlers replaces: another "
     "file handler would serve the deck's folder by Voilà's allowlist"),
    (tornado.web.RequestHandler, "finish", "self._finished = True",
     "page_limited reads _finished to leave alone a load Jupyter already answered (the login "
     "redirect)"),
    (NotebookClient, "async_setup_kernel", "add_signal_handler",
     "nbclient adds its SIGINT and SIGTERM handlers through the loop's add_signal_handler, which "
     "start() filters"),
)


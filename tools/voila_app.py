"""Voilà for `make present`: only the slide assets as files, local Host, bad paths 404, clean exit.

tools.servers runs it in its own process (PresentVoila.instance(), initialize(argv), start()), on
the sockets it bound (tools.servers.bind): Voilà's own port search is not used.

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
- The kernels' connection files go to the launcher's runtime folder (tools/runtime.py), not to
  the temp folder: a killed launcher's files are then removed by the next one.
- The signals in stop_on (tools.servers: SIGINT, SIGTERM, SIGHUP) stop it: the kernels are shut
  down, then their connection files' folder goes. nbclient, which runs each notebook, puts its own
  handlers on SIGINT and SIGTERM for the run and then sets them back to their default action
  (asyncio's add_signal_handler, remove_signal_handler): a later SIGTERM would end Voilà at once,
  leaving voila_*/kernel-*.json behind, and one during a run would stop only that run.
  So nbclient's handlers are not added for these signals; the server's own stay.
"""

import shutil
import signal
from urllib.parse import unquote_to_bytes

import tornado.httpserver
import tornado.ioloop
import tornado.web
from jupyter_core.paths import jupyter_runtime_dir
from jupyter_core.utils import run_sync
from traitlets import default
from voila.app import Voila
from voila.static_file_handler import AllowListFileHandler

from tools.build_slides import VENDOR

LOCAL_HOSTS = {"127.0.0.1", "localhost"}


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
            self.finish(f"{status_code}: {self._reason}\n")

    return FilesOr404


class PresentVoila(Voila):
    announce = None  # called with (port, token) once the server listens (tools.servers)
    stop_on: tuple = ()  # the signals that stop the server
    sockets: list = []  # listening sockets, bound by the launcher

    @default("connection_dir_root")
    def _in_the_runtime_dir(self) -> str:
        return jupyter_runtime_dir()  # the launcher's own folder (tools/runtime.py)

    def init_handlers(self) -> list:
        rules = []
        for pattern, handler, *options in super().init_handlers():
            if handler is AllowListFileHandler:
                handler, options = tornado.web.StaticFileHandler, [{"path": str(VENDOR)}]
            if handler is self.identity_provider.logout_handler_class:
                handler, options = tornado.web.ErrorHandler, [{"status_code": 404}]
            if issubclass(handler, tornado.web.StaticFileHandler):
                handler = files_or_404(handler)
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

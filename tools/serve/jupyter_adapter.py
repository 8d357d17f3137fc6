"""JupyterLab and Notebook 7 for `make lab`: on the launcher's socket, and a 404 for a path that
names nothing.

tools.serve.servers runs it in its own process (initialized(App, argv, sockets), then start()).

- The server listens on the sockets the launcher bound (tools.serve.servers.bind) instead of
  searching for a port itself: jupyter_server 2.21 searches past 65535 (with PORT=65535 taken it
  tries 65536, which the system takes for port 0, any free port) and names the port it tried, not
  the one it got. jupyter_server's port search and listen (two private methods) are replaced:
  see OVERRIDES, the list of what this module changes inside jupyter_server.
- It writes no jpserver-PID-open.html (a page to open it from, with the token, readable by all):
  no browser is opened (ServerApp's no_browser_open_file, a public trait but not a
  configurable one: set as the server is made).
- A request that names no file, no kernel spec's file and no export format is a 404 (Jupyter's
  own 404 page; a foreign Host header still a 403) before any handler sees it: Jupyter's handlers
  raise on it, which tornado answers with a 500 and a traceback. That is a NUL byte in the path
  (/files/a%00b, /kernelspecs/python3/%00: os.path.realpath's ValueError), a name longer than a
  file's name can be (/api/contents/ and 10,000 characters: ENAMETOOLONG), and an export format
  nbconvert has no exporter for (/nbconvert/bogus/…: jupyter_server expects a KeyError, nbconvert
  raises ExporterNameError).
- A path whose %-escapes are bytes that are not UTF-8 text (/%ff%fe) is a 400 with a one-line
  body (NotText, ahead of every handler, the Voilà deck's too): tornado's own 400 comes from
  decoding the path before the handler has started, and Jupyter's error page then fails on it,
  logging three chained tracebacks and sending an empty body. A foreign Host header is a 403.
- jupyter_server logs no URL (it would log two, above the launcher's): the launcher prints the
  one URL to open, and says where the token is when stdout is no terminal
  (tools/serve/servers.py). Any URL it does log carries no token, only "token=...": a log
  redirected to a file (`make lab 2>lab.log`) must not hold the key to the server. The token is
  made here (48 hex digits, as Jupyter makes its own) and given to Jupyter's identity provider as
  configuration, in this process (never on a command line), and Jupyter logs a token it did not
  make as "...".
"""

import re
import secrets
from importlib.metadata import entry_points
from urllib.parse import unquote_to_bytes

from jupyter_server import serverapp
from jupyter_server.base.handlers import Template404
from jupyter_server.extension.application import ExtensionApp
from tornado.routing import Matcher, Rule
from tornado.web import RequestHandler
from traitlets import List
from traitlets.config import Config

NAME_MAX = 255  # the longest file name, in bytes (Linux, macOS)
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
NOT_TEXT = ("The path must be UTF-8 text once its %-escapes are decoded; got {!r}. Check the link "
            "it came from.\n")


class NotTextPath(Matcher):
    """Matches a request whose path, %-decoded, is not UTF-8."""

    def match(self, request) -> dict | None:
        try:
            unquote_to_bytes(request.path).decode("utf-8")
        except UnicodeDecodeError:
            return {}
        return None


class NotText(RequestHandler):
    """A 400 with one line for a path that is no text (a 403 for a foreign Host header)."""

    def prepare(self) -> None:
        self.set_header("Content-Type", "text/plain; charset=UTF-8")
        if self.request.host_name not in LOCAL_HOSTS:
            self.set_status(403)
            self.finish(f"Host must be local; got {self.request.host!r}.\n")
        else:
            self.set_status(400)
            self.finish(NOT_TEXT.format(self.request.path[:80]))


NOT_TEXT_RULE = Rule(NotTextPath(), NotText)


class NamesNothing(Matcher):
    """Matches a request whose path cannot name a file or an export format (see above)."""

    def __init__(self, base_url: str) -> None:
        self.export = re.compile(re.escape(base_url.rstrip("/")) + r"/nbconvert/(\w+)(?:/|$)")
        self.formats = {e.name for e in entry_points(group="nbconvert.exporters")}

    def match(self, request) -> dict | None:
        path = unquote_to_bytes(request.path)
        export = self.export.match(request.path)
        names_nothing = (b"\0" in path or max(map(len, path.split(b"/"))) > NAME_MAX
                         or export is not None and not self.has_exporter(export[1]))
        return {} if names_nothing else None  # {}: the handler takes no arguments

    def has_exporter(self, name: str) -> bool:
        """nbconvert's get_exporter(name) finds one: its lookup, without loading the exporter."""
        return name == "ipynb" or name.lower() in self.formats


class ServerApp(serverapp.ServerApp):  # Jupyter's name, in its log too
    """Jupyter's server, on the launcher's sockets, paths that name nothing a 404."""

    sockets = List()  # listening sockets, bound by the launcher (initialized's argument)

    def running_server_info(self, kernel_count: bool = True) -> str:  # no URL: the launcher's
        info = super().running_server_info(kernel_count)
        return info.replace(f" is running at:\n{self.display_url}", " is running")

    def start_app(self) -> None:
        self.identity_provider.token_generated = False  # no "copy and paste one of these URLs"
        super().start_app()

    def _find_http_port(self) -> None:  # the launcher found it
        self.port = self.sockets[0].getsockname()[1]

    def _bind_http_server(self) -> None:  # listen on the launcher's sockets
        self.http_server.add_sockets(self.sockets)

    def init_webapp(self) -> None:
        super().init_webapp()  # then the rule, ahead of every handler extensions add later
        self.web_app.add_handlers(".*$", [NOT_TEXT_RULE,
                                          Rule(NamesNothing(self.base_url), Template404)])


# What ServerApp overrides inside jupyter_server, where no configuration reaches: (the class, the
# method, its parameters, why). tests/test_server_adapters.py checks each against the installed
# release, and that the class overrides nothing else.
OVERRIDES = (
    (serverapp.ServerApp, "_find_http_port", ("self",),
     "the port is the launcher's socket's: Jupyter's own search goes past 65535, races a server "
     "started at the same moment, and names the port it tried, not the one it got"),
    (serverapp.ServerApp, "_bind_http_server", ("self",),
     "listen on the launcher's sockets (Jupyter can be given a port or a Unix socket, never a "
     "bound TCP socket)"),
    (serverapp.ServerApp, "init_webapp", ("self",),
     "the NotText and NamesNothing rules go in as the web application is made, ahead of every "
     "extension's handlers (tornado tries host rules in the order they were added)"),
    (serverapp.ServerApp, "running_server_info", ("self", "kernel_count"),
     "no URL in Jupyter's own status lines: the launcher prints the one URL to open"),
    (serverapp.ServerApp, "start_app", ("self",),
     "no \"copy and paste one of these URLs\" block: token_generated is set False first"),
)
# What initialized() relies on, without overriding it: (the class, the method, text its source
# must hold, why). Checked as OVERRIDES are.
RELIES_ON = (
    (ExtensionApp, "make_serverapp", "cls.serverapp_class",
     "initialize_server makes the server from serverapp_class: without it the server would be "
     "Jupyter's own, searching for a port and answering paths that name nothing with 500s"),
    (serverapp.ServerApp, "_get_urlparts", 'token_generated else "..."',
     "the URLs Jupyter logs show a token it did not make as \"...\": the token made here stays "
     "out of the log"),
    (serverapp.ServerApp, "start_app", "token_generated",
     "start_app prints its URL block only when the identity provider made the token"),
)


def initialized(App, argv: list[str], sockets: list) -> ServerApp:
    """App (LabApp or JupyterNotebookApp) with argv, set up by its own initialize_server on the
    server above (ExtensionApp's serverapp_class), listening on sockets, with a fresh token made
    here: Jupyter logs a token it did not make as "token=...", so its log never holds it."""
    App.serverapp_class = ServerApp
    config = Config({"IdentityProvider": {"token": secrets.token_hex(24)}})
    return App.initialize_server(argv=argv, sockets=sockets, no_browser_open_file=True,
                                 config=config)

"""Voilà for `make present`: token from JUPYTER_TOKEN, only the slide assets as files, local Host.

tools.servers runs it as `python -m tools.voila_app NOTEBOOK --option ...` (Voilà's own options).

- With auto_token on, Voilà's identity provider takes the token from JUPYTER_TOKEN (off, there is
  no token at all).
- /voila/files/ serves build/slides/vendor/ and nothing else: tornado normalises the path (`..`,
  `%2f`) and refuses one outside that folder. (Voilà's allowlist is a regex on the raw path.)
- Every handler refuses a request whose Host header is not this machine (a DNS-rebinding page),
  as Jupyter's own handlers do; Voilà turns that check off.
"""

import tornado.web
from voila.app import Voila
from voila.static_file_handler import AllowListFileHandler

from tools.build_slides import VENDOR

LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def local_only(handler: type[tornado.web.RequestHandler]) -> type[tornado.web.RequestHandler]:
    """handler, refusing (403) a request whose Host header is not this machine."""

    class LocalOnly(handler):
        def prepare(self):
            if self.request.host_name not in LOCAL_HOSTS:
                raise tornado.web.HTTPError(403, f"Host must be local; got {self.request.host}")
            return super().prepare()

    return LocalOnly


class PresentVoila(Voila):
    def init_handlers(self) -> list:
        rules = []
        for pattern, handler, *options in super().init_handlers():
            if handler is AllowListFileHandler:
                handler, options = tornado.web.StaticFileHandler, [{"path": str(VENDOR)}]
            rules.append((pattern, local_only(handler), *options))
        return rules


if __name__ == "__main__":
    PresentVoila.launch_instance(auto_token=True)

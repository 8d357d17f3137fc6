// The search page only (tools/publish/book/extension.py): Sphinx's search fetches each matching page to
// show a snippet of it, and a book opened from disk cannot fetch. The pages' text is in
// book-pages.js (window.BOOK_PAGES, one page's sections and words each), and a fetch of one of
// the book's pages is answered from it; any other fetch goes on as it was.
(function () {
  const pages = window.BOOK_PAGES || {};
  const fetchFromTheNetwork = window.fetch ? window.fetch.bind(window) : null;
  const here = new URL(".", document.baseURI).href;
  window.fetch = function (resource, options) {
    const address = typeof resource === "string" ? resource : resource && resource.url;
    const url = address ? new URL(address, document.baseURI) : null;
    const name = url && url.pathname.split("/").pop().replace(/\.html$/, "");
    if (url && new URL(".", url).href === here && Object.hasOwn(pages, name)) {
      return Promise.resolve(new Response(pages[name], {
        headers: { "Content-Type": "text/html; charset=utf-8" },
      }));
    }
    return fetchFromTheNetwork(resource, options);
  };
})();

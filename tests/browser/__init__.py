"""Browser tests: JupyterLab, RISE and the static slide decks in headless Chromium (marker: browser)."""

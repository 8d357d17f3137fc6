"""Browser tests: JupyterLab, RISE, Voila and slide decks in headless Chromium (marker browser)."""

// RISE's Alt+R writes nothing: a JupyterLab extension of one plugin, written by hand (no build).
//
// jupyterlab-rise's slideshow commands, RISE:preview (Alt+R, the View menu, the notebook's
// toolbar button) and RISE:slideshow (a new browser tab), save the notebook before they open the
// deck, because the deck is a page of its own that reads the notebook from the server. That save
// writes a committed notebook as soon as a cell has run in it. This plugin:
// - in JupyterLab, turns that one save into no save (Ctrl+S, File > Save and the toolbar's save
//   button still write), and lets the deck read a notebook that has unsaved changes from
//   JupyterLab's memory (window.posattnUnsavedNotebook);
// - in RISE's deck page, reads the notebook from there: the deck shows the notebook as it is in
//   JupyterLab, outputs and live widgets included (the deck runs on the notebook's kernel), and
//   nothing is written.
//
// How: app.commands.execute is wrapped; for those two commands, the current notebook's context
// gets a save() of its own, which does nothing and removes itself, for as long as the command
// runs (RISE saves the notebook its tracker has current, which its commands require to be the
// shell's current widget: their isEnabled). In the deck, serviceManager.contents.get is wrapped.
// tests/browser/test_rise.py checks both in a browser (`make test-rise`): the day a RISE or
// JupyterLab release changes how the deck saves or loads, those tests fail.
//
// JupyterLab loads a prebuilt extension from static/remoteEntry.js, the "load" of package.json,
// as a module-federation container: window._JUPYTERLAB[name] with init(shareScope) and
// get(module), whose module (an ES module: __esModule) exports the plugin as its default. The
// plugin imports nothing, so the container shares nothing.
var _JUPYTERLAB = (window._JUPYTERLAB = window._JUPYTERLAB || {});

(function () {
  "use strict";
  const SAVING_FIRST = new Set(["RISE:preview", "RISE:slideshow"]);

  function skipRiseSave(app) {
    const commands = app.commands;
    const execute = commands.execute.bind(commands);
    commands.execute = (id, args) => {
      const context = SAVING_FIRST.has(id) ? app.shell.currentWidget?.context : undefined;
      if (!context || typeof context.save !== "function") {
        return execute(id, args);
      }
      context.save = async () => {
        delete context.save; // RISE's one save skipped; the next save is a person's
      };
      return execute(id, args).finally(() => delete context.save);
    };
  }

  function unsavedNotebook(app) {
    return (path) => {
      for (const widget of app.shell.widgets("main")) {
        const context = widget.context;
        if (context?.path === path && context.model.dirty) {
          return context.model.toJSON();
        }
      }
      return undefined;
    };
  }

  function theLab() {
    // the JupyterLab page this deck was opened from: RISE:preview's panel, RISE:slideshow's tab
    for (const other of [window.parent, window.opener]) {
      try {
        if (other && other !== window && other.posattnUnsavedNotebook) {
          return other;
        }
      } catch (error) {
        // another origin's page: not JupyterLab's
      }
    }
    return undefined;
  }

  function readFromTheLab(app, lab) {
    const contents = app.serviceManager.contents;
    const get = contents.get.bind(contents);
    contents.get = async (path, options) => {
      const model = await get(path, options);
      const unsaved = model.type === "notebook" && model.content && lab.posattnUnsavedNotebook(path);
      return unsaved ? { ...model, content: unsaved } : model;
    };
  }

  const plugin = {
    id: "posattn-rise:present-without-saving",
    description: "RISE's decks show the notebook as it is in JupyterLab, and nothing is saved.",
    autoStart: true,
    activate: (app) => {
      const lab = theLab();
      if (lab) {
        readFromTheLab(app, lab);
      } else {
        skipRiseSave(app);
        window.posattnUnsavedNotebook = unsavedNotebook(app);
      }
    },
  };

  _JUPYTERLAB["posattn-rise"] = {
    init: () => Promise.resolve(),
    get: () => Promise.resolve(() => ({ __esModule: true, default: plugin })),
  };
})();

// The slide's size in CSS pixels for this window, for the static decks and the live deck
// (`make present`). On a 16:9 screen it is the deck's own, 1280×720. On a squarer screen (a 4:3
// projector at 1024×768, 16:10) the slide narrows, down to 1024, and grows to the window's
// shape: reveal.js then scales it as it scales 1280×720 on 16:9 (0.96 at 1024×768), where it
// would letterbox a 1280×720 slide to 983×553 and draw 25 px text at 19 px. A window taller still
// (portrait) gets the 4:3 slide. A printout (?print-pdf: handouts) is always the deck's own size.
function seriesSlideSize(width, height) {
  var aspect = Math.max(window.innerWidth / window.innerHeight, 4 / 3);
  if (/print-pdf/i.test(window.location.search) || !(aspect < width / height)) {
    return {width: width, height: height};
  }
  var narrow = Math.max(Math.round(height * aspect), 1024);
  return {width: narrow, height: Math.round(narrow / aspect)};
}

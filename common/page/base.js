/* What both of wgprof's HTML pages do alike (the library's report and `wgprof diff --html`),
 * written before each page's own script in the same script element. Text from the data reaches
 * the page through textContent only (element()), never parsed as HTML, so that no name can add
 * markup or script. */
var wgprofPage = (function () {
  'use strict';
  function element(tag, className, text) {
    var e = document.createElement(tag);
    if (className) {
      e.className = className;
    }
    if (text != null) {
      e.textContent = text;
    }
    return e;
  }
  /* Nanoseconds as microseconds with three decimals, as the text reports write them. */
  function us(ns) {
    return ns == null ? '-' : (ns / 1e3).toFixed(3);
  }
  /* Marks the page drawn (the tests wait for it) and says so on the console. */
  function rendered(message) {
    document.body.dataset.rendered = 'ok';
    console.log(message);
  }
  return {element: element, us: us, rendered: rendered, DOT: ' \u00b7 '};
})();

/* The interface strings of the page's language, for every script. Each language's script bundle starts
   with them (window.qaStringsData, studysite/site/bundles.py, from the catalogue
   studysite/strings/<lang>.yml: its `js.` keys, with the language, its locale and its folder below the
   site root). QAStrings.t("study-quiz.graded", {n: 3}) fills {name} placeholders; scope("study-quiz")
   gives a module its own t. The root 404 page, which answers for every language, carries every
   language's as JSON (<script type="application/json" data-qa-strings data-qa-lang>): the one of
   <html lang> is used (its own script has set that to the language of the address by the time this runs). */
(function () {
  "use strict";
  var here = document.documentElement.lang;
  var node = [].slice.call(document.querySelectorAll("script[data-qa-strings]")).filter(function (n) {
    return n.getAttribute("data-qa-lang") === here;
  })[0];
  var data = window.qaStringsData || { lang: here, locale: here, root: "", strings: {} };
  try {
    if (node) data = JSON.parse(node.textContent);
  } catch (e) {
    /* no strings: each key shows as itself, which a test notices */
  }

  /** The text of `key` ("file.key") with {name} placeholders filled from `values`; the key if unknown. */
  function t(key, values) {
    var text = Object.hasOwn(data.strings, key) ? data.strings[key] : key;
    return String(text).replace(/\{(\w+)\}/g, function (all, name) {
      return values && name in values ? values[name] : all;
    });
  }

  /** A module's own t: scope("study-quiz")("graded") is t("study-quiz.graded"). */
  function scope(file) {
    return function (key, values) {
      return t(file + "." + key, values);
    };
  }

  window.QAStrings = { lang: data.lang, locale: data.locale, root: data.root, t: t, scope: scope };
})();

// MathJax 2 configuration for the symq docs. MathJax itself is copied into the built site
// (mathjax/ next to this folder) by docs/_site/hooks.py, so pages render math offline.
// pymdownx.arithmatex (generic mode) wraps math in <span class="arithmatex">\(...\)</span> and
// <div class="arithmatex">\[...\]</div>; only those elements are processed.
window.MathJax = {
  config: ["TeX-AMS-MML_HTMLorMML-full.js"],
  jax: ["input/TeX", "output/HTML-CSS"],
  tex2jax: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
    ignoreClass: ".*",
    processClass: "arithmatex|jp-RenderedLatex|jp-RenderedHTMLCommon|output_latex"
  },
  "HTML-CSS": {
    availableFonts: ["STIX-Web"],
    preferredFont: "STIX-Web",
    webFont: "STIX-Web",
    imageFont: null,
    linebreaks: { automatic: true }
  },
  TeX: { extensions: ["AMSmath.js", "AMSsymbols.js"] },
  showMathMenu: false,
  messageStyle: "none"
};

// A "copy" button on every code block of the symq docs (named in mkdocs.yml extra_javascript).
// It copies the code as shown; for console blocks, only the commands (the lines after "$ "),
// so that a pasted block runs. No network, no library.
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("pre > code").forEach(function (code) {
    var pre = code.parentNode;
    var host = pre.parentNode && pre.parentNode.classList.contains("highlight") ? pre.parentNode : pre;
    if (host.querySelector("button.symq-copy")) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "symq-copy";
    button.textContent = "copy";
    button.title = "copy to the clipboard";
    button.addEventListener("click", function () {
      var text = code.innerText;
      var console = /(^|\s)language-console(\s|$)/.test(host.className + " " + code.className);
      if (console) {
        text = text.split("\n").filter(function (line) { return line.indexOf("$ ") === 0; })
                   .map(function (line) { return line.slice(2); }).join("\n");
      }
      var done = function () {
        button.textContent = "copied";
        setTimeout(function () { button.textContent = "copy"; }, 1500);
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done);
      } else {  // file:// pages: the older API
        var area = document.createElement("textarea");
        area.value = text;
        document.body.appendChild(area);
        area.select();
        document.execCommand("copy");
        document.body.removeChild(area);
        done();
      }
    });
    host.appendChild(button);
  });
});

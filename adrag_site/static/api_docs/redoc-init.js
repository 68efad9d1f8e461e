// Starts Redoc on the API's documentation page (templates/api_docs/redoc.html). It is a file,
// not an inline script, because the portal's CSP allows no inline script. Redoc's <style>
// elements must carry the page's style nonce; browsers hide `nonce` attributes from scripts, so
// the page passes it in a data attribute.
(function () {
  "use strict";
  var container = document.getElementById("redoc-container");
  var nonce = container.dataset.styleNonce;
  // The bundle injects its scrollbar CSS as it loads, before it can be given the nonce, so the
  // policy blocked it: add the same rules again, this time with the nonce.
  document.querySelectorAll("style:not([nonce])").forEach(function (blocked) {
    var style = document.createElement("style");
    style.nonce = nonce;
    style.textContent = blocked.textContent;
    blocked.replaceWith(style);
  });
  // Redoc's search runs in a worker made from a blob: URL, which the policy does not allow.
  Redoc.init(container.dataset.specUrl, { nonce: nonce, disableSearch: true }, container);
})();

// The API tokens page: make a token (its key shown once), list the caller's tokens, revoke one.
(function () {
  "use strict";
  var A = window.Adrag;
  var el = A.el;
  var form = document.getElementById("token-form");
  if (!form) return;
  var rows = document.getElementById("token-rows");
  var status = document.getElementById("token-status");
  var made = document.getElementById("token-made");
  var keyBox = document.getElementById("token-key");

  function when(iso) { return iso ? A.formatTime(iso) : "—"; }

  function load() {
    return A.api("/api/tokens").then(function (tokens) {
      A.clear(rows);
      if (!tokens.length) {
        rows.appendChild(el("tr", null, el("td", { colSpan: 7, className: "muted", text: "No tokens yet." })));
        return;
      }
      tokens.forEach(function (token) {
        var revoke = el("button", { type: "button", className: "danger", text: "Revoke" });
        revoke.addEventListener("click", function () {
          if (!window.confirm("Revoke " + token.name + "? Scripts using it stop working.")) return;
          A.api("/api/tokens/" + encodeURIComponent(token.id), { method: "DELETE" }).then(load).catch(function (err) {
            status.textContent = "Not revoked: " + err.message;
          });
        });
        rows.appendChild(el("tr", null, [
          el("td", { text: String(token.name) }),
          el("td", { text: String(token.scope) }),
          el("td", null, el("code", { text: String(token.prefix) + "…" })),
          el("td", { text: when(token.created_at) }),
          el("td", { text: when(token.last_used_at) }),
          el("td", { text: token.expires_at ? when(token.expires_at) : "never" }),
          el("td", null, revoke)
        ]));
      });
    }).catch(function (err) {
      A.clear(rows);
      rows.appendChild(el("tr", null, el("td", { colSpan: 7, className: "error", text: "Tokens could not be loaded (" + err.message + ")." })));
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var days = document.getElementById("token-expiry").value;
    var body = {
      name: document.getElementById("token-name").value.trim(),
      scope: document.getElementById("token-scope").value
    };
    if (days) body.expires_in_days = parseInt(days, 10);
    status.textContent = "Making…";
    A.api("/api/tokens", { method: "POST", body: body }).then(function (token) {
      status.textContent = "";
      keyBox.textContent = token.key;
      made.hidden = false;
      form.reset();
      return load();
    }).catch(function (err) {
      status.textContent = "Not made: " + err.message;
    });
  });

  load();
})();

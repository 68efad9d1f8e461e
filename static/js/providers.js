// The providers page: availability and models of each provider, and the user's default choice
// (provider + model), remembered in localStorage for the chat page.
(function () {
  "use strict";
  var A = window.Adrag;
  var el = A.el;
  var grid = document.getElementById("provider-grid");
  if (!grid) return;
  var summary = document.getElementById("default-summary");
  var report = null;

  function effectiveDefault() {
    var saved = A.loadDefault();
    if (saved && report.providers[saved.provider]) return { provider: saved.provider, model: saved.model, saved: true };
    var name = report.default_provider;
    var provider = report.providers[name] || {};
    return { provider: name, model: provider.default_model || "", saved: false };
  }

  function renderSummary() {
    var choice = effectiveDefault();
    var provider = report.providers[choice.provider] || {};
    A.clear(summary);
    A.append(summary, [
      el("strong", { text: String(provider.label || choice.provider) }),
      choice.model ? " · " : "",
      choice.model ? el("code", { text: choice.model }) : null,
      el("span", { className: "muted", text: choice.saved ? "  (your choice)" : "  (the server's default; pick your own below)" })
    ]);
    if (choice.saved && !provider.available) {
      A.append(summary, el("span", { className: "error", text: " This provider is unavailable right now; the chat falls back to the server's default." }));
    }
    summary.dataset.provider = choice.provider;
    summary.dataset.model = choice.model || "";
  }

  function render() {
    A.clear(grid);
    var choice = effectiveDefault();
    Object.keys(report.providers).forEach(function (name) {
      var provider = report.providers[name];
      var isDefault = choice.provider === name;
      var modelId = "model-" + name;
      var models = (provider.models || []).slice();
      var select = el("select", { id: modelId, disabled: !provider.available });
      models.forEach(function (model) {
        select.appendChild(el("option", { value: model, title: model, text: A.modelLabel(model, provider.default_model) }));
      });
      select.value = isDefault && choice.model && models.indexOf(choice.model) !== -1 ? choice.model : provider.default_model || models[0] || "";
      var status = el("p", { className: "muted small", role: "status" });
      var button = el("button", {
        type: "button", className: isDefault ? "" : "primary", disabled: !provider.available,
        id: "use-" + name,
        text: isDefault ? "Save model" : "Use as my default",
        onclick: function () {
          if (A.saveDefault(name, select.value)) {
            renderSummary();
            render();
            var card = document.querySelector('[data-provider="' + name + '"] [role=status]');
            if (card) card.textContent = "Saved. The chat page will use it.";
          } else {
            status.textContent = "This browser would not store the choice.";
          }
        }
      });
      grid.appendChild(el("section", {
        className: "card provider-card" + (provider.available ? "" : " unavailable") + (isDefault ? " is-default" : ""),
        dataset: { provider: name }, "aria-labelledby": "provider-" + name
      }, [
        el("div", { className: "card-head" }, [
          el("h2", { id: "provider-" + name, text: String(provider.label || name) }),
          el("span", { className: "badge " + (provider.available ? "ok" : "err"), text: provider.available ? "available" : "unavailable" })
        ]),
        el("p", { className: "muted small" }, [
          "Name ", el("code", { text: name }),
          name === report.default_provider ? " · server default" : "",
          isDefault ? " · your default" : ""
        ]),
        el("h3", { text: "Models" }),
        models.length ? el("ul", null, models.map(function (model) { return el("li", { text: model }); })) : el("p", { className: "muted", text: "No models listed." }),
        el("label", { for: modelId, text: "Model to use" }),
        select,
        el("div", { className: "actions" }, button),
        status,
        provider.available ? null : el("p", { className: "muted small", text: availabilityHint(name) })
      ]));
    });
  }

  function availabilityHint(name) {
    if (name === "openai") return "Set OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server) on the server to enable it.";
    if (name === "ollama") return "Start an Ollama server at OLLAMA_BASE_URL to enable it.";
    return "Not configured on this server.";
  }

  A.api("/api/providers").then(function (body) {
    report = body;
    renderSummary();
    render();
  }).catch(function (err) {
    summary.textContent = "";
    A.append(summary, el("span", { className: "error", text: "Providers could not be loaded: " + err.message }));
  });
})();

// The document viewer a citation opens: a PDF at the cited page with the passage highlighted
// (pdf.js, vendored, loaded only for PDFs), any other file as its passages with the cited one
// marked and scrolled to. Reads GET /api/documents/<id>/passages and, for a PDF, /file.
(function () {
  "use strict";
  var A = window.Adrag;
  var el = A.el;
  var root = document.getElementById("document-view");
  if (!root) return;
  var documentId = root.dataset.documentId;
  var chunkId = Number(root.dataset.chunk) || null;
  var state = { pdf: null, page: 1, pages: 1, cited: null, pdfjs: null };

  function $(id) { return document.getElementById(id); }
  // Images the browser shows (GET /api/documents/<id>/scan); a TIFF keeps its text only.
  var SCANS = ["png", "jpg", "jpeg"];

  function fail(message) {
    var box = $("document-error");
    box.textContent = message;
    box.hidden = false;
  }

  // Lower case, letters and digits only: a PDF's text layer splits and spaces words its own way.
  function normalise(text) {
    return String(text || "").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
  }

  function showCited(passage) {
    if (!passage) {
      if (chunkId) {
        // Re-indexing makes new passages: an older citation's passage is gone.
        $("cited-where").textContent = "";
        $("cited-text").textContent = "The cited passage is no longer in this document (it was indexed again since); it opens at the cited page.";
        $("cited-passage").hidden = false;
      }
      return;
    }
    var where = [];
    if (passage.page) where.push("page " + passage.page);
    if (passage.section && passage.section.length) where.push(passage.section.join(" › "));
    $("cited-where").textContent = where.join(" · ");
    $("cited-text").textContent = passage.text;
    $("cited-passage").hidden = false;
  }

  function renderPassages(passages) {
    var list = $("passages");
    A.clear(list);
    var marked = null;
    passages.forEach(function (passage) {
      var heading = passage.section && passage.section.length ? passage.section.join(" › ") : "";
      var item = el("li", { className: "passage", id: "passage-" + passage.id, dataset: { chunkId: String(passage.id) } }, [
        heading ? el("p", { className: "muted small", text: heading + (passage.page ? " · page " + passage.page : "") }) : null,
        el("p", { className: "passage-text", text: passage.text })
      ]);
      if (passage.id === chunkId) {
        item.classList.add("passage-mark");
        item.setAttribute("aria-current", "true");
        marked = item;
      }
      list.appendChild(item);
    });
    $("text-pane").hidden = false;
    root.dataset.marked = marked ? "1" : "0";
    if (marked) marked.scrollIntoView({ block: "center" });
  }

  function loadPdf() {
    return import(root.dataset.pdfjs).then(function (pdfjs) {
      state.pdfjs = pdfjs;
      pdfjs.GlobalWorkerOptions.workerSrc = root.dataset.pdfjsWorker;
      return fetch("/api/documents/" + documentId + "/file", { credentials: "same-origin" });
    }).then(function (response) {
      if (!response.ok) throw new Error("The file could not be loaded (" + response.status + ").");
      return response.arrayBuffer();
    }).then(function (data) {
      // No eval: the page's Content-Security-Policy allows none.
      // Fonts a PDF names but does not embed, and the character maps of CJK text, from
      // this server (vendored with pdf.js).
      return state.pdfjs.getDocument({
        data: data,
        isEvalSupported: false,
        standardFontDataUrl: root.dataset.pdfjsFonts,
        cMapUrl: root.dataset.pdfjsCmaps,
        cMapPacked: true
      }).promise;
    }).then(function (pdf) {
      state.pdf = pdf;
      state.pages = pdf.numPages;
      $("pdf-pane").hidden = false;
      return showPage(Math.min(Math.max(state.page, 1), state.pages));
    });
  }

  function showPage(number) {
    // A newer request (a quick second click) wins; an older render stops where it is.
    var token = (state.token || 0) + 1;
    state.token = token;
    if (state.task) state.task.cancel();
    state.page = number;
    $("pdf-page-label").textContent = "Page " + number + " of " + state.pages;
    $("pdf-prev").disabled = number <= 1;
    $("pdf-next").disabled = number >= state.pages;
    return state.pdf.getPage(number).then(function (page) {
      if (token !== state.token) return null;
      var holder = $("pdf-page");
      A.clear(holder);
      var width = Math.min(holder.clientWidth || 800, 1000);
      var viewport = page.getViewport({ scale: width / page.getViewport({ scale: 1 }).width });
      var ratio = window.devicePixelRatio || 1;
      var canvas = el("canvas", { className: "pdf-canvas" });
      canvas.width = Math.floor(viewport.width * ratio);
      canvas.height = Math.floor(viewport.height * ratio);
      canvas.style.width = Math.floor(viewport.width) + "px";
      canvas.style.height = Math.floor(viewport.height) + "px";
      var layer = el("div", { className: "textLayer" });
      layer.style.setProperty("--total-scale-factor", String(viewport.scale));
      layer.style.setProperty("--scale-factor", String(viewport.scale));
      holder.style.width = Math.floor(viewport.width) + "px";
      holder.style.height = Math.floor(viewport.height) + "px";
      holder.appendChild(canvas);
      holder.appendChild(layer);
      state.task = page.render({
        canvasContext: canvas.getContext("2d"),
        viewport: viewport,
        transform: ratio !== 1 ? [ratio, 0, 0, ratio, 0, 0] : null
      });
      var drawn = state.task.promise.catch(function (err) {
        if (err && err.name === "RenderingCancelledException") return null;
        throw err;
      });
      var textLayer = new state.pdfjs.TextLayer({
        textContentSource: page.streamTextContent(),
        container: layer,
        viewport: viewport
      });
      return Promise.all([drawn, textLayer.render()]).then(function () {
        if (token === state.token) highlight(textLayer.textDivs, number);
      });
    });
  }

  // Mark the text pieces of the page that belong to the cited passage.
  // The lines OCR read on a scanned page that belong to the cited passage, marked over the
  // page where OCR found them (their boxes are fractions of the page). Returns how many.
  function markBoxes(holder, number) {
    var scan = state.boxes;
    var cited = state.cited;
    if (!scan || !cited || scan.page !== number) return 0;
    var passage = " " + normalise(cited.text) + " ";
    var count = 0;
    scan.boxes.forEach(function (box) {
      var piece = normalise(box[4]);
      if (piece.length < 3 || passage.indexOf(" " + piece + " ") === -1) return;
      var mark = el("div", { className: "scan-mark", title: String(box[4]) });
      mark.style.left = (box[0] * 100) + "%";
      mark.style.top = (box[1] * 100) + "%";
      mark.style.width = ((box[2] - box[0]) * 100) + "%";
      mark.style.height = ((box[3] - box[1]) * 100) + "%";
      holder.appendChild(mark);
      count += 1;
    });
    return count;
  }

  function showScan(passages) {
    var holder = $("scan-page");
    var image = el("img", { className: "scan-image", alt: "The scanned page as uploaded", src: "/api/documents/" + documentId + "/scan" });
    image.addEventListener("load", function () {
      var count = markBoxes(holder, (state.cited && state.cited.page) || 1);
      root.dataset.scanMarked = String(count);
      var first = holder.querySelector(".scan-mark");
      if (first) first.scrollIntoView({ block: "center" });
    });
    image.addEventListener("error", function () {
      $("scan-pane").hidden = true;
    });
    holder.appendChild(image);
    $("scan-pane").hidden = false;
    renderPassages(passages);
  }

  function highlight(divs, number) {
    var count = 0;
    var cited = state.cited;
    if (cited && (!cited.page || cited.page === number)) {
      var passage = " " + normalise(cited.text) + " ";
      divs.forEach(function (div) {
        var piece = normalise(div.textContent);
        if (piece.length >= 4 && passage.indexOf(" " + piece + " ") !== -1) {
          div.classList.add("passage-mark");
          count += 1;
        }
      });
    }
    // A scanned page has no text layer: its OCR lines are marked instead.
    var scanned = markBoxes($("pdf-page"), number);
    root.dataset.scanMarked = String(scanned);
    root.dataset.marked = String(count + scanned);
    root.dataset.shownPage = String(number);
    var first = document.querySelector("#pdf-page .passage-mark, #pdf-page .scan-mark");
    if (first) first.scrollIntoView({ block: "center" });
  }

  $("pdf-prev").addEventListener("click", function () { if (state.page > 1) showPage(state.page - 1); });
  $("pdf-next").addEventListener("click", function () { if (state.page < state.pages) showPage(state.page + 1); });

  A.api("/api/documents/" + documentId + "/passages" + (chunkId ? "?around=" + chunkId : "")).then(function (body) {
    var passages = body.passages || [];
    state.cited = passages.filter(function (p) { return p.id === chunkId; })[0] || null;
    state.boxes = body.ocr_boxes || null;
    showCited(state.cited);
    state.page = (state.cited && state.cited.page) || Number(root.dataset.page) || 1;
    if (root.dataset.fileType === "pdf") {
      return loadPdf().catch(function (err) {
        // The passages still read where the PDF cannot be drawn.
        fail("The PDF could not be shown: " + err.message);
        renderPassages(passages);
      });
    }
    if (SCANS.indexOf(String(root.dataset.fileType).toLowerCase()) !== -1) {
      showScan(passages);
      return;
    }
    renderPassages(passages);
  }).catch(function (err) { fail("Could not load the document: " + err.message); });
})();

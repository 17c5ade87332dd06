/* The annotator page: fetches tasks from /v1/label/<token>/next, posts answers to
   /v1/label/<token>/answers. Keyboard: pairwise ←/1 and →/2; rating 1–5; ranking the image
   numbers best first, Backspace undoes, Enter sends; Enter confirms reading and continues. */
(function () {
  "use strict";
  const app = document.getElementById("label-app");
  if (!app) return;
  const token = app.dataset.token;
  const S = JSON.parse(document.getElementById("strings").textContent);
  const $ = (id) => document.getElementById(id);
  const fmt = (s, vars) => s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? vars[k] : m));
  const WORD_MS = Number(app.dataset.wordMs || 180);
  const LANG = document.documentElement.lang || "en";
  let task = null;
  let ready = false;        // choices enabled
  let busy = false;         // an answer is in flight
  let paused = false;
  let ranking = [];         // positions picked so far (ranking tasks)
  let mode = "loading";     // loading | task | break | done

  function show(id, on) { $(id).hidden = !on; }

  function setError(message) {
    $("error").textContent = fmt(S.error, { message: message });
    show("error", true);
  }

  function setReady(on) {
    ready = on;
    for (const b of $("controls").querySelectorAll("button")) b.disabled = !on;
    for (const f of $("images").querySelectorAll("button.pick")) f.disabled = !on;
  }

  async function loadNext() {
    mode = "loading";
    show("task", false); show("break", false); show("error", false);
    $("progress").textContent = S.loading;
    let r;
    try {
      r = await fetch(`/v1/label/${token}/next?lang=${encodeURIComponent(LANG)}`,
                      { headers: { Accept: "application/json" } });
    } catch (e) { setError(String(e)); return; }
    if (r.status === 204) {
      mode = "done";
      $("progress").textContent = "";
      $("done").textContent = S.all_done;
      show("done", true);
      return;
    }
    if (r.status === 410) { ended(await r.json().catch(() => ({}))); return; }
    if (!r.ok) { setError(await r.text()); return; }
    render((await r.json()).task);
  }

  // the link no longer works: the campaign closed (a thank-you) or the invitation was revoked
  function ended(got) {
    mode = "done";
    task = null;
    setReady(false);
    show("task", false); show("break", false); show("error", false);
    $("progress").textContent = "";
    $("done").textContent = got.error?.code === "closed" ? S.closed : S.ended;
    show("done", true);
  }

  // the optional "about you" form, once, before the first task (campaigns that ask)
  async function sendProfile(fields) {
    try {
      const r = await fetch(`/v1/label/${token}/profile`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(fields),
      });
      if (!r.ok) { setError((await r.json().catch(() => ({}))).error?.message || r.status); return; }
    } catch (e) { setError(String(e)); return; }
    show("profile", false);
    loadNext();
  }

  function askProfile() {
    const form = $("profile");
    mode = "profile";
    $("progress").textContent = "";
    show("profile", true);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const fields = {};
      for (const name of ["age_band", "gender"]) {
        if (form.elements[name].value) fields[name] = form.elements[name].value;
      }
      const country = form.elements.country.value.trim().toUpperCase();
      if (country) fields.country = country;
      sendProfile(fields);
    });
    $("profile-skip").addEventListener("click", () => sendProfile({}));
  }

  function figure(src, caption, pos) {
    const btn = document.createElement("button");
    btn.type = "button";
    btn.className = "pick";
    btn.dataset.pos = String(pos);
    const img = document.createElement("img");
    img.src = src;
    img.alt = caption;
    const cap = document.createElement("span");
    cap.className = "caption";
    cap.textContent = caption;
    btn.append(img, cap);
    return btn;
  }

  function render(t) {
    task = t;
    mode = "task";
    ranking = [];
    const s = t.session;
    $("progress").textContent = fmt(S.progress, { index: s.index, size: s.size, number: s.number });
    $("question").textContent = t.question;
    const images = $("images");
    const controls = $("controls");
    images.replaceChildren();
    controls.replaceChildren();
    images.className = "images " + t.kind;
    $("reason").value = "";
    show("reason-box", t.kind === "rating");
    $("reason-label").textContent = S.reason;
    const text = t.kind === "rating" && t.instruction ? t.instruction : t.prompt;
    $("text-label").textContent = t.kind === "rating" && t.instruction ? S.instruction : S.prompt;
    show("text-box", Boolean(text));
    $("text").textContent = "";
    if (t.kind === "pairwise") {
      images.append(figure(t.images.a, S.left, 0), figure(t.images.b, S.right, 1));
      for (const [pos, label] of [[0, S.left + " (←)"], [1, S.right + " (→)"]]) {
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = label;
        b.dataset.pos = String(pos);
        b.addEventListener("click", () => send({ choice: pos === 0 ? "a" : "b" }));
        controls.append(b);
      }
      $("hint").textContent = S.pair_hint;
    } else if (t.kind === "rating") {
      if (t.images.length === 2) {
        images.append(figure(t.images[0], S.before, -1), figure(t.images[1], S.after, -1));
      } else {
        images.append(figure(t.images[0], fmt(S.image_n, { n: 1 }), -1));
      }
      for (let v = 1; v <= 5; v++) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "rate";
        b.textContent = String(v);
        const anchor = (t.anchors || {})[String(v)];
        if (anchor) { b.title = anchor; b.setAttribute("aria-label", `${v}: ${anchor}`); }
        b.addEventListener("click", () => send({ rating: v }));
        controls.append(b);
      }
      $("hint").textContent = S.rating_hint;
    } else {
      t.images.forEach((src, i) => images.append(figure(src, fmt(S.image_n, { n: i + 1 }), i)));
      const undo = document.createElement("button");
      undo.type = "button";
      undo.textContent = S.undo;
      undo.addEventListener("click", undoRank);
      const go = document.createElement("button");
      go.type = "button";
      go.id = "send-ranking";
      go.textContent = S.send_ranking;
      go.addEventListener("click", sendRanking);
      controls.append(undo, go);
      $("hint").textContent = S.ranking_hint;
    }
    for (const f of images.querySelectorAll("button.pick")) {
      f.addEventListener("click", () => pick(Number(f.dataset.pos)));
    }
    showOriginal(t);
    show("task", true);
    if (t.reveal && t.prompt) reveal(t.prompt); else {
      $("text").textContent = text || "";
      show("confirm-read", false);
      setReady(true);
    }
  }

  // translated texts (prompt, question, scale labels): the originals one click away (and back)
  function showOriginal(t) {
    const btn = $("original");
    const prompt = Boolean(t.prompt_original) && !(t.kind === "rating" && t.instruction);
    const any = prompt || Boolean(t.question_original) || Boolean(t.anchors_original);
    show("original", any);
    if (!any) return;
    let original = false;
    btn.textContent = S.show_original;
    btn.onclick = () => {
      original = !original;
      if (prompt) {
        $("text").textContent = original ? t.prompt_original : t.prompt;
        $("text").lang = original ? "" : LANG;
      }
      if (t.question_original) {
        $("question").textContent = original ? t.question_original : t.question;
        $("question").lang = original ? "" : LANG;
      }
      const anchors = (original ? t.anchors_original : t.anchors) || {};
      for (const b of $("controls").querySelectorAll("button.rate")) {
        const anchor = anchors[b.textContent];
        if (anchor) { b.title = anchor; b.setAttribute("aria-label", `${b.textContent}: ${anchor}`); }
      }
      btn.textContent = original ? S.show_translation : S.show_original;
    };
  }

  function reveal(prompt) {
    setReady(false);
    const words = prompt.split(/\s+/).filter(Boolean);
    const out = $("text");
    const confirm = $("confirm-read");
    confirm.textContent = S.read_confirm;
    confirm.disabled = true;
    show("confirm-read", true);
    $("hint").textContent = S.read_hint;
    let i = 0;
    const shown = task;
    const step = () => {
      if (task !== shown) return;
      out.textContent = words.slice(0, ++i).join(" ");
      if (i < words.length) setTimeout(step, WORD_MS);
      else { confirm.disabled = false; confirm.focus(); }
    };
    step();
  }

  function confirmRead() {
    const confirm = $("confirm-read");
    if (confirm.hidden || confirm.disabled) return;
    confirm.hidden = true;
    $("hint").textContent = S.pair_hint;
    setReady(true);
  }
  $("confirm-read").addEventListener("click", confirmRead);

  function pick(pos) {
    if (!ready || busy || paused || !task || pos < 0) return;
    if (task.kind === "pairwise") { send({ choice: pos === 0 ? "a" : "b" }); return; }
    if (task.kind !== "ranking" || ranking.includes(pos) || pos >= task.images.length) return;
    ranking.push(pos);
    markRanks();
  }

  function undoRank() { ranking.pop(); markRanks(); }

  function markRanks() {
    for (const f of $("images").querySelectorAll("button.pick")) {
      const r = ranking.indexOf(Number(f.dataset.pos));
      f.dataset.rank = r >= 0 ? String(r + 1) : "";
      f.classList.toggle("ranked", r >= 0);
    }
  }

  function sendRanking() {
    if (!task || task.kind !== "ranking") return;
    const k = task.images.length;
    if (ranking.length === k - 1) {   // the last one is implied
      for (let p = 0; p < k; p++) if (!ranking.includes(p)) ranking.push(p);
      markRanks();
    }
    if (ranking.length === k) send({ order: ranking.slice() });
  }

  async function send(answer) {
    if (!ready || busy || paused || !task) return;
    busy = true;
    const body = Object.assign({ task: task.id, lang: LANG }, answer);
    if (task.prompt_language) body.prompt_language = task.prompt_language;
    const reason = $("reason").value.trim();
    if (task.kind === "rating" && reason) body.reason = reason;
    let r, got;
    try {
      r = await fetch(`/v1/label/${token}/answers`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      got = await r.json().catch(() => ({}));
    } catch (e) { busy = false; setError(String(e)); return; }
    // still busy while the reply is read: a key pressed meanwhile must not answer twice
    if (r.status === 410) { busy = false; ended(got); return; }
    if (!r.ok) { busy = false; setError(got.error?.message || r.status); return; }
    if (!got.accepted) { busy = false; pause(got.penalty_s); return; }
    setReady(false);  // this task is closed; the next one enables the choices again
    busy = false;
    if (task.session.index >= task.session.size) {
      mode = "break";
      show("task", false);
      $("break-text").textContent = S.session_done;
      $("continue").textContent = S.continue;
      show("break", true);
      $("continue").focus();
    } else {
      loadNext();
    }
  }

  function pause(seconds) {
    paused = true;
    setReady(false);
    let left = Math.ceil(seconds);
    $("pause-text").textContent = fmt(S.too_fast, { s: left });
    $("pause-count").textContent = String(left);
    show("pause", true);
    const tick = () => {
      left -= 1;
      if (left > 0) {
        $("pause-count").textContent = String(left);
        setTimeout(tick, 1000);
      } else {
        paused = false;
        show("pause", false);
        ranking = [];
        markRanks();
        setReady(true);
      }
    };
    setTimeout(tick, 1000);
  }

  $("continue").addEventListener("click", () => { if (mode === "break") loadNext(); });

  document.addEventListener("keydown", (ev) => {
    if (ev.target instanceof HTMLTextAreaElement) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const key = ev.key;
    if (mode === "break") {
      if (key === "Enter") { ev.preventDefault(); loadNext(); }
      return;
    }
    if (mode !== "task" || !task) return;
    if (key === "Enter" && !$("confirm-read").hidden) { ev.preventDefault(); confirmRead(); return; }
    if (task.kind === "pairwise") {
      if (key === "ArrowLeft" || key === "1") { ev.preventDefault(); pick(0); }
      else if (key === "ArrowRight" || key === "2") { ev.preventDefault(); pick(1); }
    } else if (task.kind === "rating") {
      if (/^[1-5]$/.test(key)) { ev.preventDefault(); send({ rating: Number(key) }); }
    } else {
      if (/^[1-9]$/.test(key)) { ev.preventDefault(); pick(Number(key) - 1); }
      else if (key === "Backspace") { ev.preventDefault(); undoRank(); }
      else if (key === "Enter") { ev.preventDefault(); sendRanking(); }
    }
  });

  if (app.dataset.askProfile === "1") askProfile(); else loadNext();
})();

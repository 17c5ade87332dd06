// The probe page: expand/collapse topics and node views, override verdicts, live status.
// Every text shown comes from the server as data and is set with textContent (never HTML).
"use strict";

const WHO_KEY = "judge.probe.who";
const OPEN_KEY = "judge.probe.open.";

function signature(tree) {
  if (!tree) return "";
  const parts = [];
  const queue = [tree.root];
  while (queue.length) {
    const node = queue.shift();
    let labelled = 0;
    for (const t of node.tests) for (const v of t.judge_verdicts) if (v !== null) labelled += 1;
    parts.push(`${node.id}:${node.tests.length}:${labelled}:${node.failures.length}:` +
      `${node.reflection ? 1 : 0}:${node.status}`);
    queue.push(...node.children);
  }
  return parts.join("|");
}

function rateClass(rate) {
  if (rate === null || rate === undefined) return "rate-none";
  if (rate >= 0.6) return "rate-good";
  if (rate >= 0.3) return "rate-mixed";
  return "rate-poor";
}

function rateText(rate) {
  return rate === null || rate === undefined ? "not run" : `${Math.round(rate * 100)}% pass`;
}

function setExpanded(button, open) {
  button.setAttribute("aria-expanded", open ? "true" : "false");
  const target = document.getElementById(button.getAttribute("aria-controls"));
  if (target) target.hidden = !open;
  const arrow = button.querySelector("span[aria-hidden]");
  if (arrow && button.classList.contains("toggle")) arrow.textContent = open ? "▾" : "▸";
}

function rememberOpen(probeId) {
  const open = [];
  for (const b of document.querySelectorAll("button[aria-expanded]")) {
    open.push(`${b.getAttribute("aria-controls")}=${b.getAttribute("aria-expanded")}`);
  }
  sessionStorage.setItem(OPEN_KEY + probeId, JSON.stringify(open));
}

function restoreOpen(probeId) {
  let saved = [];
  try { saved = JSON.parse(sessionStorage.getItem(OPEN_KEY + probeId) || "[]"); } catch { saved = []; }
  for (const entry of saved) {
    const [controls, value] = String(entry).split("=");
    for (const b of document.querySelectorAll("button[aria-expanded]")) {
      if (b.getAttribute("aria-controls") === controls) setExpanded(b, value === "true");
    }
  }
}

function showMetrics(metrics) {
  if (!metrics) return;
  for (const name of ["bugs", "apr", "afr", "n_inputs", "n_images"]) {
    const cell = document.querySelector(`[data-metric="${name}"]`);
    if (cell) cell.textContent = metrics[name] === null ? "—" : String(metrics[name]);
  }
  const agreement = document.querySelector('[data-metric="agreement"]');
  const a = metrics.agreement;
  if (agreement && a) {
    agreement.textContent = a.n_compared
      ? `${a.agree} of ${a.n_compared} agree (${Math.round(a.rate * 100)}%)` : "no overrides yet";
  }
}

function showRates(tree) {
  const queue = [tree.root];
  while (queue.length) {
    const node = queue.shift();
    queue.push(...node.children);
    const button = document.querySelector(`button[data-open="${CSS.escape(node.id)}"]`);
    if (button) {
      button.classList.remove("rate-good", "rate-mixed", "rate-poor", "rate-none");
      button.classList.add(rateClass(node.pass_rate));
      button.querySelector(".node-rate").textContent = rateText(node.pass_rate);
    }
    node.tests.forEach((test, i) => {
      const box = document.querySelector(`[data-test="${CSS.escape(node.id)}/${i}"] .test-rate`);
      if (box) box.textContent = rateText(test.pass_rate);
    });
  }
}

async function fetchStatus(probeId) {
  const r = await fetch(`/ui/probes/${probeId}/status.json`, { credentials: "same-origin" });
  if (!r.ok) throw new Error(`status ${r.status}`);
  return r.json();
}

async function override(probeId, button, message) {
  const who = document.getElementById("who");
  const name = who.value.trim();
  if (!name) {
    message.textContent = "Enter your name first: it is stored with your verdict.";
    message.className = "error";
    who.focus();
    return;
  }
  localStorage.setItem(WHO_KEY, name);
  const verdict = button.dataset.verdict !== "true";
  const body = {
    node: button.dataset.node, test: Number(button.dataset.testIndex),
    image: Number(button.dataset.image), verdict, who: name,
  };
  button.disabled = true;
  try {
    const r = await fetch(`/ui/probes/${probeId}/overrides`, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const answer = await r.json();
    if (!r.ok) throw new Error(answer.error ? answer.error.message : `status ${r.status}`);
    const word = verdict ? "pass" : "fail";
    const other = verdict ? "fail" : "pass";
    button.dataset.verdict = String(verdict);
    button.textContent = `${verdict ? "Pass" : "Fail"} → mark ${other}`;
    button.classList.remove("v-none");
    button.classList.toggle("v-pass", verdict);
    button.classList.toggle("v-fail", !verdict);
    const label = button.getAttribute("aria-label").replace(/: [^;]*; mark as \w+$/, "");
    button.setAttribute("aria-label", `${label}: ${word}; mark as ${other}`);
    const note = button.parentElement.querySelector("[data-override]");
    if (note) note.textContent = `Person: ${word} (${name}, just now)`;
    showMetrics(answer.metrics);
    message.textContent = `Saved: image marked ${word}. Metrics updated.`;
    message.className = "notice";
    const status = await fetchStatus(probeId);
    if (status.tree) showRates(status.tree);
  } catch (err) {
    message.textContent = `Not saved: ${err.message}`;
    message.className = "error";
  } finally {
    button.disabled = false;
    button.focus();
  }
}

function poll(root, probeId) {
  const status = document.getElementById("probe-status");
  const tick = async () => {
    try {
      const body = await fetchStatus(probeId);
      const strong = status.querySelector("strong");
      if (strong) strong.textContent = body.status;
      if (body.tree) showMetrics(body.tree.metrics);
      if (body.status !== "running" || signature(body.tree) !== root.dataset.signature) {
        rememberOpen(probeId);
        window.location.reload();
        return;
      }
    } catch (err) {
      status.dataset.pollError = String(err);
    }
    setTimeout(tick, 1500);
  };
  setTimeout(tick, 1500);
}

document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("probe");
  if (!root) return;
  const probeId = root.dataset.probeId;
  const who = document.getElementById("who");
  who.value = localStorage.getItem(WHO_KEY) || "";
  who.addEventListener("change", () => localStorage.setItem(WHO_KEY, who.value.trim()));
  const message = document.getElementById("override-message");
  // without this script every node and node view stays shown; with it, the buttons' state
  for (const b of root.querySelectorAll("button[aria-expanded]")) {
    setExpanded(b, b.getAttribute("aria-expanded") === "true");
  }
  restoreOpen(probeId);
  root.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button || !root.contains(button)) return;
    if (button.classList.contains("verdict")) {
      override(probeId, button, message);
    } else if (button.hasAttribute("aria-expanded")) {
      setExpanded(button, button.getAttribute("aria-expanded") !== "true");
      rememberOpen(probeId);
    }
  });
  if (root.dataset.status === "running") poll(root, probeId);
});

// Light progressive enhancement for the UI's forms; every page works without it.
// - a live character counter for textareas with data-max
// - Ctrl+Enter / Cmd+Enter submits the form a textarea belongs to
"use strict";

function updateCounter(area, counter) {
  const max = Number(area.dataset.max);
  const used = Array.from(area.value.replace(/\r\n/g, "\n")).length;
  counter.textContent = `${used} / ${max} characters used.`;
  counter.classList.toggle("over", used > max);
}

document.addEventListener("DOMContentLoaded", () => {
  for (const counter of document.querySelectorAll("[data-counter-for]")) {
    const area = document.getElementById(counter.dataset.counterFor);
    if (!area || !area.dataset.max) continue;
    area.addEventListener("input", () => updateCounter(area, counter));
    updateCounter(area, counter);
  }
  for (const area of document.querySelectorAll("textarea")) {
    area.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && area.form) {
        event.preventDefault();
        area.form.requestSubmit();
      }
    });
  }
});

// Hearth's household page: live refresh and forms without reloading. Hand-written, no build step.
//
// The page names the household areas it shows (<main data-areas="year">). The server's event
// stream (/events) names each area that changed; the page then fetches its own view again
// (X-Hearth-Fragment: 1 returns only <main>'s content) and swaps it in. After a dropped
// connection, the stream reconnects by itself and the page fetches its view on reconnecting,
// so it never shows a state older than the gap. Forms post with fetch and show the answer
// (the refreshed view, or the refusal beside its field); without script they post normally.
"use strict";
(function () {
  const main = document.getElementById("main");
  const state = document.getElementById("live-state");
  if (!main) return;
  let fetching = false;
  let again = false;
  let connectedOnce = false;

  function colour() {
    for (const card of main.querySelectorAll("[data-colour]")) {
      const value = card.getAttribute("data-colour");
      if (/^#[0-9a-fA-F]{6}$/.test(value)) card.style.setProperty("--card", value);
    }
  }

  function swap(html) {
    const focused = document.activeElement && document.activeElement.id;
    main.innerHTML = html;
    colour();
    if (focused) {
      const element = document.getElementById(focused);
      if (element) element.focus();
    }
  }

  async function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    main.setAttribute("data-busy", "yes");
    try {
      const response = await fetch(location.href, {
        headers: { "X-Hearth-Fragment": "1" }, credentials: "same-origin", cache: "no-store",
      });
      if (response.ok) swap(await response.text());
    } catch (error) {
      // The connection's own reconnect brings the next refresh.
    } finally {
      fetching = false;
      if (again) {
        again = false;
        refresh();
      } else {
        main.setAttribute("data-busy", "no");
      }
    }
  }

  function showState(text, live) {
    if (!state) return;
    state.textContent = text;
    state.classList.toggle("offline", !live);
    state.setAttribute("data-connected", live ? "yes" : "no");
  }

  function connect() {
    if (!window.EventSource) return;
    const areas = (main.getAttribute("data-areas") || "").split(" ");
    const source = new EventSource("/events");
    source.addEventListener("hello", function () {
      showState("live", true);
      // A reconnection, or a change between this page's load and the stream's start: catch up.
      refresh();
      connectedOnce = true;
    });
    source.addEventListener("change", function (event) {
      let area = "*";
      try { area = JSON.parse(event.data).area; } catch (error) { /* refresh all the same */ }
      if (area === "*" || areas.indexOf(area) >= 0) refresh();
    });
    source.addEventListener("error", function () {
      showState(connectedOnce ? "reconnecting…" : "offline", false);
    });
  }

  document.addEventListener("submit", async function (event) {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("live")) return;
    event.preventDefault();
    const body = new URLSearchParams(new FormData(form, event.submitter));
    for (const button of form.querySelectorAll("button")) button.disabled = true;
    try {
      const response = await fetch(form.action, {
        method: "POST", body: body, credentials: "same-origin",
        headers: { "X-Hearth-Fragment": "1" },
      });
      if (response.ok || response.status === 422) {
        swap(await response.text());
        const error = main.querySelector("[data-error-for]");
        if (error) error.focus();
      } else {
        form.submit();
      }
    } catch (error) {
      form.submit();
    }
  });

  // A tick box submits its form as soon as it changes.
  document.addEventListener("change", function (event) {
    const input = event.target;
    if (input instanceof HTMLInputElement && input.classList.contains("autosubmit") && input.form) {
      input.form.requestSubmit();
    }
  });

  // A game's turn timer counts down between the server's updates (each state brings a fresh
  // figure): the time left as it was read, less the time since the view was drawn.
  let drawn = Date.now();
  const observer = new MutationObserver(function () { drawn = Date.now(); });
  observer.observe(main, { childList: true });
  function pad(value) { return value < 10 ? "0" + value : String(value); }
  setInterval(function () {
    // The undo bar stays a few seconds after a change (the server says how many are left).
    for (const bar of main.querySelectorAll("[data-expires-ms]")) {
      if (Date.now() - drawn >= Number(bar.getAttribute("data-expires-ms"))) bar.hidden = true;
    }
    for (const time of main.querySelectorAll("[data-countdown-ms]")) {
      const left = Math.max(0, Number(time.getAttribute("data-countdown-ms")) - (Date.now() - drawn));
      const seconds = Math.ceil(left / 1000);
      time.textContent = Math.floor(seconds / 60) + ":" + pad(seconds % 60);
    }
  }, 1000);

  colour();
  connect();
})();

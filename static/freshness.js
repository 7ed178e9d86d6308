/* Keep the freshness line (templates/_freshness.html) current on a page left open: fetched again every
   5 s while the page is visible, so a watcher that dies shows as "Not watching" within seconds. */
document.addEventListener("DOMContentLoaded", () => {
  const link = document.querySelector("p.freshness a.freshness-json");
  if (!link) return;
  const url = link.getAttribute("href").replace(/\.json$/, "");
  setInterval(async () => {
    if (document.hidden) return;
    try {
      const response = await fetch(url, { cache: "no-store" });
      if (!response.ok) return;
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html").querySelector("p.freshness");
      const shown = document.querySelector("p.freshness");
      if (fresh && shown) shown.replaceWith(fresh);
    } catch (e) {
      /* the server is down: leave the line as it is */
    }
  }, 5000);
});

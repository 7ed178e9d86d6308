/* Fold a table's column descriptions into a <details>, so the rows come first. */
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("dl.column-descriptions").forEach((dl) => {
    const details = document.createElement("details");
    details.className = "column-descriptions";
    const summary = document.createElement("summary");
    summary.textContent = "What the columns mean";
    details.append(summary);
    dl.replaceWith(details);
    details.append(dl);
  });
});

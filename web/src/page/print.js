// What the printed lesson needs from script (its layout is the @media print rules of page.css and
// of each widget's stylesheet): the address it was printed from, which holds its settings, under the footer.

/**
 * Keep every [data-print-address] holding the page's address when it prints.
 * @param {Document} [doc]
 */
export function watchPrint(doc = document) {
  const fill = () => {
    for (const el of doc.querySelectorAll('[data-print-address]')) {
      if (el.textContent !== location.href) el.textContent = location.href;
    }
  };
  window.addEventListener('beforeprint', fill);
  // Printing that sends no beforeprint (a PDF made by a browser driver) still changes the media.
  if (typeof matchMedia === 'function') matchMedia('print').addEventListener('change', (e) => { if (e.matches) fill(); });
  fill();
}

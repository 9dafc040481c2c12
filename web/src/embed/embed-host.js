// dist/headwise-embed.js: include it once on a page that embeds Headwise iframes marked with
// data-headwise, e.g.
//   <iframe data-headwise src="…/embed.html?widget=heads" sandbox="allow-scripts allow-downloads"
//           title="Attention weights per head" width="100%" height="600"></iframe>
//   <script src="…/headwise-embed.js" defer></script>
// It sets each frame's height to its content's height as the frame reports it, and re-dispatches
// the frame's messages as DOM events on the <iframe>: "headwise-quiz" (same detail as the web
// components' event, plus id), "headwise-height" and "headwise-ready". Messages are matched to
// frames by their source window, so sandboxed frames (origin "null") work.

(() => {
  /** @type {any} */
  const w = window;
  if (w.headwiseEmbed) return; // included twice
  const MAX_HEIGHT = 100000;

  /** @returns {HTMLIFrameElement[]} */
  const frames = () => Array.from(document.querySelectorAll('iframe[data-headwise]'));

  /** @param {HTMLIFrameElement} frame */
  const prepare = (frame) => {
    if (frame.dataset.headwiseReady !== undefined) return;
    frame.dataset.headwiseReady = '';
    frame.style.border = '0';
    frame.style.display = 'block';
    if (!frame.hasAttribute('width')) frame.style.width = '100%';
  };

  /** @param {MessageEvent} event */
  const onMessage = (event) => {
    const data = event.data;
    if (!data || typeof data !== 'object' || typeof data.type !== 'string' || !data.type.startsWith('headwise:')) return;
    const frame = frames().find((f) => f.contentWindow === event.source);
    if (!frame) return;
    prepare(frame);
    const { type, ...detail } = data;
    if (type === 'headwise:height') {
      const height = Number(data.height);
      // From its current height to the new one, never through 0: the frame keeps the height it
      // was given until its widget is drawn (the page sends no height before), and the text
      // below it stays put while it loads.
      if (!Number.isFinite(height) || height < 1) return;
      frame.style.height = `${Math.min(MAX_HEIGHT, Math.ceil(height))}px`;
    }
    const name = { 'headwise:quiz': 'headwise-quiz', 'headwise:height': 'headwise-height', 'headwise:ready': 'headwise-ready' }[/** @type {string} */ (type)];
    if (name) frame.dispatchEvent(new CustomEvent(name, { bubbles: true, detail }));
  };

  /** Ask every frame for its height again (for frames that reported before this script ran). */
  const refresh = () => {
    for (const frame of frames()) {
      prepare(frame);
      if (frame.contentWindow) frame.contentWindow.postMessage({ type: 'headwise:request-height' }, '*');
    }
  };

  window.addEventListener('message', onMessage);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', refresh);
  else refresh();
  w.headwiseEmbed = { refresh };
})();

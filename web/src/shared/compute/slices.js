// A task of its own: what the page's long jobs (training, a language's fonts) yield to between
// slices of work, so that input, timers and painting run in between; and a task after the next
// frame, for work that must not join the frame's own (afterFrame).

/** @type {(() => void)[]} */
const waiting = [];
/** @type {MessageChannel|null} */
let channel = null;

/**
 * Resolves in a new task, after whatever input, timers and painting are waiting. A message
 * task: setTimeout(0) is clamped to 4 ms when nested and throttled in background tabs.
 * @returns {Promise<void>}
 */
export function nextSlice() {
  return new Promise((resolve) => {
    if (typeof MessageChannel !== 'function') {
      setTimeout(resolve, 0);
      return;
    }
    if (!channel) {
      channel = new MessageChannel();
      const port = channel.port1;
      port.onmessage = () => {
        // (Under Node an open port keeps the process alive: only while a slice is awaited.)
        if (waiting.length === 1) /** @type {any} */ (port).unref?.();
        /** @type {() => void} */ (waiting.shift())();
      };
    }
    /** @type {any} */ (channel.port1).ref?.();
    waiting.push(resolve);
    channel.port2.postMessage(0);
  });
}

/**
 * Call `f` in a task after the next frame (a message posted from the frame's callback); after a
 * timer where no frame comes (a page loading in a hidden tab).
 * @param {() => void} f
 */
export function afterFrame(f) {
  let sent = false;
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    channel.port1.close();
    f();
  };
  const go = () => {
    if (sent) return;
    sent = true;
    channel.port2.postMessage(0);
  };
  requestAnimationFrame(go);
  setTimeout(go, 100);
}

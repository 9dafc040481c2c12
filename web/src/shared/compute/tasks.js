// A task of its own: what the page's long jobs (training, a language's fonts) yield to between
// slices of work, so that input, timers and painting run in between.

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

// Per-session clipboard (an init script of each context). Chromium's clipboard is shared by every context
// of a browser, so copies never reach it: navigator.clipboard.writeText / write and
// document.execCommand('copy') are replaced by a call to the context's own binding. A write is first kept
// in sessionStorage until the binding acknowledges it, and every new document re-sends what is still
// pending, so a copy is recorded even when the page navigates right after it (the binding deduplicates
// by id). window.__plandvcClipFlush() re-sends the pending writes and resolves once all are recorded.
(() => {
  const BINDING = '__plandvc_clip';
  const KEY = '__plandvc_clip_pending';
  const doc = (crypto.randomUUID && crypto.randomUUID()) || String(Math.random()).slice(2);
  let n = 0;
  const load = () => { try { return JSON.parse(sessionStorage.getItem(KEY) || '[]'); } catch (e) { return []; } };
  const save = (list) => { try { sessionStorage.setItem(KEY, JSON.stringify(list)); } catch (e) {} };
  const ack = (id) => save(load().filter((w) => w.id !== id));
  const send = (w) => {
    const fn = window[BINDING];
    if (typeof fn !== 'function') return Promise.resolve(false);
    return fn(w.id, w.text).then(() => { ack(w.id); return true; }, () => false);
  };
  const record = (text) => {
    const w = { id: `${doc}-${n++}`, text: String(text) };
    save(load().concat([w]));
    return send(w);
  };
  const flush = () => Promise.all(load().map(send));
  Object.defineProperty(window, '__plandvcClipFlush', { value: flush });
  const clipboard = navigator.clipboard;
  if (clipboard) {
    clipboard.writeText = (text) => record(text).then(() => undefined);
    clipboard.write = async (items) => {
      for (const item of items || []) {
        if (item.types && item.types.includes('text/plain')) {
          const blob = await item.getType('text/plain');
          await record(await blob.text());
        }
      }
    };
  }
  const execCommand = document.execCommand.bind(document);
  document.execCommand = (cmd, ...rest) => {
    if (String(cmd).toLowerCase() !== 'copy') return execCommand(cmd, ...rest);
    const el = document.activeElement;
    let text = String(window.getSelection() || '');
    if (el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') && el.selectionStart !== el.selectionEnd) {
      text = el.value.slice(el.selectionStart, el.selectionEnd);
    }
    record(text);
    return true;
  };
  if (load().length) flush();
})();

// The snapshot: one evaluate that lists the visible interactive elements in DOM order and tags each with
// data-pdx="<index>" so an action finds it again by index. Returns plain JSON (see snapshot.py).
() => {
  // A <select> laid out while the parser was still inside one of its options' text keeps the width of
  // that partial text: Chromium does not recompute a select's width when an option's text node grows.
  // That happens only when a frame is drawn mid-parse (the page's bytes arrive in two pieces under CPU
  // load), so a screenshot depended on timing. Once per document, after `load`, every select is taken out
  // of the layout and put back, so its width is measured from its whole options (the same width a page
  // drawn once, after parsing, has); the focused element is left alone (hiding it would blur it).
  if (!window.__plandvcRelaid) {
    window.__plandvcRelaid = true;
    const selects = [...document.querySelectorAll('select')].filter((s) => s !== document.activeElement);
    const styles = selects.map((s) => s.getAttribute('style'));
    for (const s of selects) s.style.setProperty('display', 'none', 'important');
    void document.documentElement.offsetWidth;
    selects.forEach((s, i) => (styles[i] === null ? s.removeAttribute('style') : s.setAttribute('style', styles[i])));
  }
  const SELECTOR = 'a, button, input, select, textarea, [role=button], [data-copy], [onclick]';
  const STABLE = ['id', 'name', 'type', 'href', 'data-control-id', 'data-copy', 'data-home', 'data-form',
                  'data-dismiss', 'value', 'placeholder', 'aria-label'];
  const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const clip = (s) => { s = squash(s); return s.length > 80 ? s.slice(0, 79) + '…' : s; };
  const hrefPath = (el) => {
    const raw = el.getAttribute('href');
    if (raw === null) return null;
    try {
      const u = new URL(raw, document.baseURI);
      return u.origin === location.origin ? u.pathname + u.search + u.hash : u.href;
    } catch (e) { return raw; }
  };
  const implicitRole = (el) => {
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (tag === 'a') return el.hasAttribute('href') ? 'link' : 'generic';
    if (tag === 'button') return 'button';
    if (tag === 'select') return el.multiple ? 'listbox' : 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'input') {
      if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'checkbox' || type === 'radio') return type;
      if (type === 'range') return 'slider';
      if (type === 'number') return 'spinbutton';
      if (type === 'search') return 'searchbox';
      return 'textbox';
    }
    return 'generic';
  };
  const labelOf = (el) => {
    const aria = el.getAttribute('aria-label');
    if (aria) return clip(aria);
    if (el.id) {
      const lab = document.querySelector(`label[for="${CSS.escape(el.id)}"]`);
      if (lab) return clip(lab.innerText);
    }
    const wrap = el.closest('label');
    if (wrap) return clip(wrap.innerText);
    return clip(el.getAttribute('placeholder') || el.getAttribute('name') || '');
  };
  const visible = (el, r) => {
    if (r.width <= 0 || r.height <= 0) return false;
    const cs = getComputedStyle(el);
    return cs.visibility !== 'hidden' && cs.display !== 'none';
  };
  for (const old of document.querySelectorAll('[data-pdx]')) old.removeAttribute('data-pdx');
  const sx = window.scrollX, sy = window.scrollY;
  const out = [];
  for (const el of document.querySelectorAll(SELECTOR)) {
    const tag = el.tagName.toLowerCase();
    if (tag === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'hidden') continue;
    const r = el.getBoundingClientRect();
    if (!visible(el, r)) continue;
    const attrs = {};
    for (const name of STABLE) {
      if (!el.hasAttribute(name)) continue;
      if (name === 'value' && !(tag === 'button' || (tag === 'input' && ['button', 'submit', 'reset', 'checkbox', 'radio'].includes(el.type)))) continue;
      attrs[name] = name === 'href' ? hrefPath(el) : el.getAttribute(name);
    }
    const isField = tag === 'select' || tag === 'textarea' ||
      (tag === 'input' && !['button', 'submit', 'reset', 'image'].includes(el.type));
    const item = {
      index: out.length, tag, role: el.getAttribute('role') || implicitRole(el),
      text: tag === 'select' || tag === 'textarea' || tag === 'input' ? clip(tag === 'input' && !isField ? el.value : '') : clip(el.innerText),
      label: labelOf(el),
      attrs,
      box: [Math.round(r.x + sx), Math.round(r.y + sy), Math.round(r.width), Math.round(r.height)],
      options: tag === 'select' ? Array.from(el.options, (o) => squash(o.text)) : null,
      value: tag === 'select' ? (el.selectedIndex >= 0 ? squash(el.options[el.selectedIndex].text) : '')
        : isField && !(el.type === 'checkbox' || el.type === 'radio') ? String(el.value) : null,
      checked: el.type === 'checkbox' || el.type === 'radio' ? !!el.checked : null,
    };
    el.setAttribute('data-pdx', String(item.index));
    out.push(item);
  }
  return {
    url: location.href, title: document.title, scroll_y: Math.round(window.scrollY),
    page_height: Math.round(document.documentElement.scrollHeight),
    viewport: [window.innerWidth, window.innerHeight], elements: out,
  };
}

// The page as browser-use's serializers read it, in one evaluate (plandvc.agent.dialects.page): a tree of the
// body's accepted elements and text nodes, with what browser-use 0.5.0's buildDomTree (dom_tree/index.js) and
// 0.13.14's clickable-element detector decide of each: visible, top-most, interactive, highlighted. The
// snapshot (plandvc/browser/snapshot.js) is untouched. It marks the page only when given `arg.draw` (marks.js,
// browser-use 0.5.0's highlightElement): then, after the walk, the highlighted elements are drawn with the
// indices the dialect gives them (document order from `arg.first`), and the caller takes them away again.
(arg) => {
  const mode = arg.mode;                       // 'bu05' or 'bu13'
  const marked = arg.draw ? [] : null;         // [element, its node] of each highlighted element, in order
  const exp = arg.expansion;                   // viewport expansion in px (0.5: 500; 0.13: 1000)
  const W = window.innerWidth, H = window.innerHeight;
  const styleOf = (el) => getComputedStyle(el);
  const inView = (r) => !(r.bottom < -exp || r.top > H + exp || r.right < -exp || r.left > W + exp);
  const DENY = new Set(['svg', 'script', 'style', 'link', 'meta', 'noscript', 'template']);
  const CURSORS = new Set(['pointer', 'move', 'text', 'grab', 'grabbing', 'cell', 'copy', 'alias', 'all-scroll',
    'col-resize', 'context-menu', 'crosshair', 'e-resize', 'ew-resize', 'help', 'n-resize', 'ne-resize',
    'nesw-resize', 'ns-resize', 'nw-resize', 'nwse-resize', 'row-resize', 's-resize', 'se-resize', 'sw-resize',
    'vertical-text', 'w-resize', 'zoom-in', 'zoom-out']);
  const BLOCKED = new Set(['not-allowed', 'no-drop', 'wait', 'progress', 'initial', 'inherit']);
  const TAGS05 = new Set(['a', 'button', 'input', 'select', 'textarea', 'details', 'summary', 'label', 'option',
    'optgroup', 'fieldset', 'legend']);
  const ROLES05 = new Set(['button', 'menuitemradio', 'menuitemcheckbox', 'radio', 'checkbox', 'tab', 'switch',
    'slider', 'spinbutton', 'combobox', 'searchbox', 'textbox', 'option', 'scrollbar']);
  const DISTINCT = new Set(['a', 'button', 'input', 'select', 'textarea', 'summary', 'details', 'label', 'option']);
  const DROLES = new Set(['button', 'link', 'menuitem', 'menuitemradio', 'menuitemcheckbox', 'radio', 'checkbox',
    'tab', 'switch', 'slider', 'spinbutton', 'combobox', 'searchbox', 'textbox', 'listbox', 'option', 'scrollbar']);
  const TAGS13 = new Set(['button', 'input', 'select', 'textarea', 'a', 'details', 'summary', 'option', 'optgroup']);
  const ROLES13 = new Set(['button', 'link', 'menuitem', 'option', 'radio', 'checkbox', 'tab', 'textbox',
    'combobox', 'slider', 'spinbutton', 'search', 'searchbox', 'row', 'cell', 'gridcell']);
  const visible = (el) => {
    const s = styleOf(el);
    const r = el.offsetWidth === undefined ? el.getBoundingClientRect() : { width: el.offsetWidth, height: el.offsetHeight };
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  };
  const isTop = (el) => {
    const rects = el.getClientRects();
    if (!rects.length || ![...rects].some((r) => r.width > 0 && r.height > 0 && inView(r))) return false;
    const m = rects[Math.floor(rects.length / 2)];
    const top = document.elementFromPoint(m.left + m.width / 2, m.top + m.height / 2);
    for (let c = top; c && c !== document.documentElement; c = c.parentElement) if (c === el) return true;
    return false;
  };
  const disabled = (el) => el.hasAttribute('disabled') || el.hasAttribute('readonly') || el.disabled || el.readOnly || el.inert;
  const interactive05 = (el, tag) => {
    const cur = styleOf(el).cursor;
    if (tag !== 'html' && CURSORS.has(cur)) return true;
    if (TAGS05.has(tag)) return !BLOCKED.has(cur) && !disabled(el);
    if (el.getAttribute('contenteditable') === 'true' || el.isContentEditable) return true;
    if (el.classList.contains('button') || el.classList.contains('dropdown-toggle') || el.getAttribute('data-index') ||
        el.getAttribute('data-toggle') === 'dropdown' || el.getAttribute('aria-haspopup') === 'true') return true;
    const role = el.getAttribute('role'), aria = el.getAttribute('aria-role');
    if ((role && ROLES05.has(role)) || (aria && ROLES05.has(aria))) return true;
    return ['onclick', 'onmousedown', 'onmouseup', 'ondblclick'].some((a) => el.hasAttribute(a) || typeof el[a] === 'function');
  };
  const formBelow = (el, depth) => depth > 0 && [...el.children].some((c) =>
    ['input', 'select', 'textarea'].includes(c.tagName.toLowerCase()) || formBelow(c, depth - 1));
  const interactive13 = (el, tag) => {
    if (tag === 'html' || tag === 'body') return false;
    if (el.hasAttribute('onclick') || typeof el.onclick === 'function') return true;
    if (tag === 'label' && el.getAttribute('for')) return false;   // 0.13.14: a label that proxies by `for`
    if (tag === 'label' && formBelow(el, 2)) return true;
    if (tag === 'span' && formBelow(el, 2)) return true;
    const names = [(el.getAttribute('class') || '').toLowerCase().split(/\s+/).join(' '), (el.id || '').toLowerCase(),
      ...el.getAttributeNames().filter((a) => a.startsWith('data-')).map((a) => (el.getAttribute(a) || '').toLowerCase())];
    if (names.some((v) => SEARCHY.some((w) => v.includes(w)))) return true;   // 0.13.14's search indicators
    if (el.disabled || el.getAttribute('aria-hidden') === 'true') return false;
    if (TAGS13.has(tag)) return true;
    if (['onclick', 'onmousedown', 'onmouseup', 'onkeydown', 'onkeyup', 'tabindex'].some((a) => el.hasAttribute(a))) return true;
    const role = el.getAttribute('role');
    if (role && ROLES13.has(role)) return true;
    if (IMPLICIT13[tag] && !role) return true;   // the accessibility tree's role of a table's row and cell
    if (el.isContentEditable) return true;
    const b = el.getBoundingClientRect();             // an icon-sized element with a class, role or label
    if (b.width >= 10 && b.width <= 50 && b.height >= 10 && b.height <= 50 &&
        ['class', 'role', 'onclick', 'data-action', 'aria-label'].some((a) => el.hasAttribute(a))) return true;
    return styleOf(el).cursor === 'pointer';
  };
  const SEARCHY = ['search', 'magnify', 'glass', 'lookup', 'find', 'query'];
  const IMPLICIT13 = { tr: 'row', td: 'cell' };
  // 0.13.14's bounding-box filter: a child >= 99% inside an <a>, a <button> or a button/combobox role is not
  // numbered, unless it is a field, a label, itself such an element, has onclick or aria-label, or a role
  const propagating = (el, tag) => {
    const role = el.getAttribute('role');
    return tag === 'a' || tag === 'button' || (['div', 'span'].includes(tag) && ['button', 'combobox'].includes(role)) ||
      (tag === 'input' && role === 'combobox');
  };
  const contained = (c, p) => {
    const x = Math.max(0, Math.min(c.right, p.right) - Math.max(c.left, p.left));
    const y = Math.max(0, Math.min(c.bottom, p.bottom) - Math.max(c.top, p.top));
    const area = c.width * c.height;
    return area > 0 && (x * y) / area >= 0.99;
  };
  const excluded13 = (el, tag, r, bound) => bound && contained(r, bound) &&
    !['input', 'select', 'textarea', 'label'].includes(tag) && !propagating(el, tag) && !el.hasAttribute('onclick') &&
    !(el.getAttribute('aria-label') || '').trim() &&
    !['button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'option'].includes(el.getAttribute('role'));
  const candidate = (el, tag) => ['a', 'button', 'input', 'select', 'textarea', 'details', 'summary', 'label'].includes(tag) ||
    el.hasAttribute('onclick') || el.hasAttribute('role') || el.hasAttribute('tabindex') ||
    el.hasAttribute('data-action') || el.getAttribute('contenteditable') === 'true';
  const distinct = (el, tag) => DISTINCT.has(tag) || DROLES.has(el.getAttribute('role') || '') || el.isContentEditable ||
    el.hasAttribute('data-testid') || el.hasAttribute('onclick') || typeof el.onclick === 'function';
  const live = (el, tag) => {
    const out = {};
    if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) out.checked = el.checked ? 'true' : 'false';
    else if (tag === 'select') out.value = el.selectedIndex >= 0 ? el.options[el.selectedIndex].text.trim() : '';
    else if ((tag === 'input' && !['button', 'submit', 'reset', 'image', 'hidden'].includes(el.type)) || tag === 'textarea') out.value = String(el.value);
    if (tag === 'option') out.selected = el.selected ? 'true' : 'false';
    else if (el.hasAttribute('aria-selected')) out.selected = el.getAttribute('aria-selected');
    const ac = el.getAttribute('aria-autocomplete');
    if (ac) out.autocomplete = ac;               // the accessibility tree's autocomplete is aria-autocomplete's
    if (el.required) out.required = 'true';
    const ex = el.getAttribute('aria-expanded');
    if (ex !== null) out.expanded = ex;
    return out;
  };
  const path = (el) => {
    const parts = [];
    for (let c = el; c && c !== document.body; c = c.parentElement) {
      let i = 1;
      for (let s = c.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === c.tagName) i++;
      parts.unshift(`${c.tagName.toLowerCase()}[${i}]`);
    }
    return parts.join('/');
  };
  const counts = { links: 0, images: 0, iframes: 0, elements: 0 };
  const walk = (node, lit, bound) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const text = (node.textContent || '').trim();
      const p = node.parentElement;
      if (!text || !p || p.tagName.toLowerCase() === 'script') return null;
      if (mode !== 'bu13') return { text };
      let j = 1;                                 // the key CDP's facts are joined by (dialects/cdp.py)
      for (let s = node.previousSibling; s; s = s.previousSibling) if (s.nodeType === Node.TEXT_NODE && (s.textContent || '').trim()) j++;
      return { text, key: `${p === document.body ? '' : path(p)}/#text[${j}]` };
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return null;
    const el = node, tag = el.tagName.toLowerCase();
    if (DENY.has(tag) && !(mode === 'bu13' && tag === 'svg')) return null;   // 0.13.14 shows an svg, collapsed
    const r = el.getBoundingClientRect(), s = styleOf(el);
    const fixed = s.position === 'fixed' || s.position === 'sticky';
    if (!fixed && !(el.offsetWidth > 0 || el.offsetHeight > 0) && !inView(r)) return null;
    counts.elements++;
    if (tag === 'a') counts.links++;
    if (tag === 'img') counts.images++;
    if (tag === 'iframe') counts.iframes++;
    const d = { tag, attrs: {}, vis: visible(el), top: false, hi: false, kids: [], key: path(el),
      view: [...el.getClientRects()].some((q) => q.width > 0 && q.height > 0 && inView(q)) };
    if (mode === 'bu13' || candidate(el, tag)) for (const n of el.getAttributeNames()) d.attrs[n] = el.getAttribute(n);
    if (d.vis) {
      d.top = isTop(el);
      if (mode === 'bu05' && d.top && interactive05(el, tag) && (!lit || distinct(el, tag))) d.hi = true;
      if (mode === 'bu13' && d.view && interactive13(el, tag) && !excluded13(el, tag, r, bound)) d.hi = true;
    }
    if (mode === 'bu13' && excluded13(el, tag, r, bound)) d.ex = true;   // 0.13's excluded_by_parent: no line
    if (marked && d.hi) marked.push([el, d]);
    if (mode === 'bu13') d.live = live(el, tag);
    if (tag !== 'svg') for (const c of el.childNodes) {
      const k = walk(c, d.hi || lit, propagating(el, tag) ? r : bound);
      if (k) d.kids.push(k);
    }
    if (tag === 'a' && !d.kids.length && !el.getAttribute('href') && !(r.width > 0 && r.height > 0)) {
      d.dropped = true;                        // not in the tree, so not numbered
      return null;
    }
    return d;
  };
  const root = { tag: 'body', attrs: {}, vis: true, top: true, hi: false, kids: [], key: '', view: true };
  for (const c of document.body.childNodes) { const k = walk(c, false, null); if (k) root.kids.push(k); }
  const out = {
    url: location.href, title: document.title, root, counts,
    page: { vw: W, vh: H, pw: document.documentElement.scrollWidth, ph: document.documentElement.scrollHeight,
      sy: Math.round(window.scrollY) },
  };
  if (marked) {                                // numbered as the dialect numbers the tree: preorder from `first`
    let i = arg.first;
    const order = marked.filter(([, d]) => !d.dropped).map(([el]) => [el, i++]);
    arg.draw(order);
    out.marks = order.length;
  }
  return out;
}

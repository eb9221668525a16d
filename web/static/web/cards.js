// Cards and dice drawn as SVG, nothing fetched: the Spanish suits (Oros, Copas, Espadas, Bastos), the
// French ones they map to (Diamonds, Hearts, Spades, Clubs), jokers, and dice with pips.
const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, children = []) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) el.appendChild(c);
  return el;
}

export const SUITS = ["O", "C", "E", "B"];

const SPANISH_COLOURS = { O: "#9a6b00", C: "#b71c1c", E: "#0d47a1", B: "#1b5e20" };
const FRENCH_COLOURS = { O: "#c62828", C: "#c62828", E: "#111111", B: "#111111" };

// One suit symbol centred on (0, 0), about 40 units tall.
function spanishSymbol(suit) {
  const c = SPANISH_COLOURS[suit];
  if (suit === "O") {  // a gold coin
    return svg("g", {}, [
      svg("circle", { r: 17, fill: "#f2c230", stroke: c, "stroke-width": 3 }),
      svg("circle", { r: 10, fill: "none", stroke: c, "stroke-width": 2 }),
      svg("circle", { r: 3, fill: c }),
    ]);
  }
  if (suit === "C") {  // a cup
    return svg("g", {}, [
      svg("path", { d: "M-15 -17 H15 Q15 2 3 6 V12 H9 Q11 16 9 19 H-9 Q-11 16 -9 12 H-3 V6 Q-15 2 -15 -17 Z",
                    fill: c, stroke: "#5d0c0c", "stroke-width": 1.5 }),
      svg("path", { d: "M-11 -13 H11", stroke: "#f2c230", "stroke-width": 3 }),
    ]);
  }
  if (suit === "E") {  // a sword, point down
    return svg("g", {}, [
      svg("path", { d: "M-3 -8 H3 L3 16 L0 21 L-3 16 Z", fill: "#cfd8dc", stroke: c, "stroke-width": 1.5 }),
      svg("rect", { x: -12, y: -11, width: 24, height: 4, rx: 2, fill: c }),
      svg("rect", { x: -2.5, y: -20, width: 5, height: 10, fill: "#8d6e63", stroke: c, "stroke-width": 1 }),
      svg("circle", { cy: -21, r: 3, fill: c }),
    ]);
  }
  // B: a club (a knotted baton)
  return svg("g", { transform: "rotate(-20)" }, [
    svg("path", { d: "M-5 20 L-7 -12 Q0 -24 7 -12 L5 20 Q0 23 -5 20 Z", fill: "#8bc34a", stroke: c, "stroke-width": 2 }),
    svg("circle", { cx: -6, cy: -4, r: 2.5, fill: c }),
    svg("circle", { cx: 6, cy: 5, r: 2.5, fill: c }),
    svg("circle", { cx: -5, cy: 12, r: 2.5, fill: c }),
  ]);
}

function frenchSymbol(suit) {
  const c = FRENCH_COLOURS[suit];
  if (suit === "O") return svg("path", { d: "M0 -19 L14 0 L0 19 L-14 0 Z", fill: c });
  if (suit === "C") {
    return svg("path", { d: "M0 17 C-22 2 -16 -18 -6 -16 C-2 -15 0 -11 0 -9 C0 -11 2 -15 6 -16 C16 -18 22 2 0 17 Z", fill: c });
  }
  if (suit === "E") {
    return svg("g", {}, [
      svg("path", { d: "M0 -19 C8 -8 17 -2 15 6 C13 12 5 12 1 7 C2 12 4 16 7 18 H-7 C-4 16 -2 12 -1 7 C-5 12 -13 12 -15 6 C-17 -2 -8 -8 0 -19 Z", fill: c }),
    ]);
  }
  return svg("g", { fill: c }, [
    svg("circle", { cx: 0, cy: -9, r: 7.5 }),
    svg("circle", { cx: -8.5, cy: 3, r: 7.5 }),
    svg("circle", { cx: 8.5, cy: 3, r: 7.5 }),
    svg("path", { d: "M-2 2 L-5 18 H5 L2 2 Z" }),
  ]);
}

function starSymbol() {
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const r = i % 2 ? 8 : 19;
    const a = (Math.PI / 5) * i - Math.PI / 2;
    pts.push(`${(r * Math.cos(a)).toFixed(1)},${(r * Math.sin(a)).toFixed(1)}`);
  }
  return svg("polygon", { points: pts.join(" "), fill: "#6a1b9a" });
}

/** Parse a card code ("7O", "12E", "JK") into {rank, suit} (suit null for a joker). */
export function parseCard(code) {
  if (code === "JK") return { rank: null, suit: null };
  return { rank: Number(code.slice(0, -1)), suit: code.slice(-1) };
}

/** The corner label of a rank: Spanish numbers, or A/J/Q/K in French. */
export function rankLabel(rank, french) {
  if (!french) return String(rank);
  return { 1: "A", 10: "J", 11: "Q", 12: "K" }[rank] || String(rank);
}

/** An SVG card face for `code`; `french` switches the suits and figures. Decorative: the caller labels it. */
export function cardSvg(code, french) {
  const { rank, suit } = parseCard(code);
  const root = svg("svg", { viewBox: "0 0 70 100", class: "card-svg", "aria-hidden": "true", focusable: "false" });
  root.appendChild(svg("rect", { x: 1, y: 1, width: 68, height: 98, rx: 7, fill: "#fffdf7", stroke: "#37474f", "stroke-width": 2 }));
  if (rank === null) {
    root.appendChild(svg("g", { transform: "translate(35 50)" }, [starSymbol()]));
    const t = svg("text", { x: 7, y: 19, "font-size": 15, "font-weight": 700, fill: "#6a1b9a" });
    t.textContent = "JK";
    root.appendChild(t);
    return root;
  }
  const colour = french ? FRENCH_COLOURS[suit] : SPANISH_COLOURS[suit];
  const label = rankLabel(rank, french);
  for (const transform of ["", "rotate(180 35 50)"]) {  // top left, and upside down at the bottom right
    const t = svg("text", { x: 6, y: 19, "font-size": 16, "font-weight": 700, fill: colour,
                            "font-family": "system-ui, sans-serif" });
    if (transform) t.setAttribute("transform", transform);
    t.textContent = label;
    root.appendChild(t);
  }
  const symbol = french ? frenchSymbol(suit) : spanishSymbol(suit);
  const figure = rank >= 10;
  root.appendChild(svg("g", { transform: `translate(35 ${figure ? 44 : 52}) scale(${figure ? 0.9 : 1.05})` }, [symbol]));
  if (figure) {  // a band for the figures (Sota, Caballo, Rey)
    root.appendChild(svg("rect", { x: 14, y: 66, width: 42, height: 6, rx: 3, fill: colour, opacity: 0.85 }));
  }
  return root;
}

/** The back of a card (the stock, the face-down close). */
export function cardBackSvg() {
  const root = svg("svg", { viewBox: "0 0 70 100", class: "card-svg", "aria-hidden": "true", focusable: "false" });
  root.appendChild(svg("rect", { x: 1, y: 1, width: 68, height: 98, rx: 7, fill: "#1a237e", stroke: "#0d0d2b", "stroke-width": 2 }));
  root.appendChild(svg("rect", { x: 8, y: 8, width: 54, height: 84, rx: 4, fill: "none", stroke: "#ffd54f", "stroke-width": 2 }));
  root.appendChild(svg("path", { d: "M35 22 L52 50 L35 78 L18 50 Z", fill: "none", stroke: "#ffd54f", "stroke-width": 2 }));
  return root;
}

const PIPS = {
  1: [[50, 50]], 2: [[28, 28], [72, 72]], 3: [[25, 25], [50, 50], [75, 75]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]], 5: [[27, 27], [73, 27], [50, 50], [27, 73], [73, 73]],
  6: [[28, 24], [72, 24], [28, 50], [72, 50], [28, 76], [72, 76]],
};

/** A die showing `value` (1..6); the 1 has the big red pip of Japanese dice. */
export function dieSvg(value) {
  const root = svg("svg", { viewBox: "0 0 100 100", class: "die-svg", "aria-hidden": "true", focusable: "false" });
  root.appendChild(svg("rect", { x: 4, y: 4, width: 92, height: 92, rx: 18, fill: "#ffffff", stroke: "#263238", "stroke-width": 4 }));
  for (const [x, y] of PIPS[value] || []) {
    root.appendChild(svg("circle", { cx: x, cy: y, r: value === 1 ? 17 : 9, fill: value === 1 ? "#c62828" : "#212121" }));
  }
  return root;
}

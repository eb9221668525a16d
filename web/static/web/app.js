// The web client: one page, the public REST API and the room WebSocket only (README.md "Playing").
// Texts go through Django's JavaScript catalogue (gettext, interpolate from /jsi18n/).
import { cardBackSvg, cardSvg, dieSvg, parseCard, rankLabel, SUITS } from "./cards.js";
import { createVoice } from "./voice.js";

const gettext = window.gettext || ((s) => s);
const interpolate = window.interpolate || ((fmt, obj) => fmt.replace(/%\((\w+)\)s/g, (_, k) => obj[k]));
const pgettext = window.pgettext || ((context, s) => s);
const ngettext = window.ngettext || ((one, many, n) => (n === 1 ? one : many));
const fmt = (text, vars) => interpolate(text, vars, true);

const store = {
  get(key, fallback) { try { const v = localStorage.getItem("chinchi." + key); return v === null ? fallback : JSON.parse(v); } catch { return fallback; } },
  set(key, value) { try { localStorage.setItem("chinchi." + key, JSON.stringify(value)); } catch { /* private mode */ } },
  remove(key) { try { localStorage.removeItem("chinchi." + key); } catch { /* private mode */ } },
};

const S = {
  token: store.get("token", null),
  me: null,
  catalogue: null,
  catalogueRead: null,  // the catalogue's request while it runs
  achievementNames: null,  // a promise of {achievement id: name in the page's language}
  seatLevels: {},  // the level chosen for each empty seat of the open room, before "Add computer"
  chat: null,
  room: null,
  view: null,
  code: null,
  ws: null,
  wsRetry: 0,
  pingTimer: null,
  french: store.get("french", false),
  sound: store.get("sound", true),
  sortByRank: store.get("sortByRank", false),
  selected: null,
  pendingCode: null,
  pendingFriend: null,
  pendingReplay: null,
  pendingWatch: null,
  watching: false,
  sent: null,
  queueTimer: null,
  seenChat: new Set(),
  userWs: null,  // the user socket /ws/me/ (turns and invitations anywhere)
  userRetry: 0,
  levels: {},  // user id -> level (the badges on the seats), read once per user
  notify: store.get("notify", false),  // the player turned notifications on
  inviteTo: null,  // the friend chosen in the lobby's "Invite a friend", until sent
};

// ------------------------------------------------------------------------------------------- helpers
const $ = (sel, root = document) => root.querySelector(sel);

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return el;
}

function toast(message) {
  const el = $("#toast");
  el.textContent = message;
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; }, 6000);
}

function announce(message) { $("#status").textContent = message; }

function errorText(err) {
  const body = err.body || {};
  let text = body.detail || err.message || gettext("Something went wrong.");
  if (body.fields) {
    text += " " + Object.entries(body.fields).map(([k, v]) => `${k}: ${[].concat(v).join(" ")}`).join("; ");
  }
  return text;
}

// This browser's device id, kept in its storage: sent with sign-ups, logins and sockets so moderators can
// find alternate accounts (docs/moderation.md "Alternate accounts"; kept by the server for TRACE_DAYS).
function deviceId() {
  let id = store.get("device", null);
  if (typeof id !== "string" || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
    id = (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`);
    store.set("device", id);
  }
  return id;
}

// A 503 `unavailable` changed nothing (API.md): the same request goes again after its Retry-After (at most
// UNAVAILABLE_WAIT_MAX seconds, plus up to half again at random so that refused clients do not all come
// back at once), up to UNAVAILABLE_RETRIES times, before the error is shown. Other 503s (`server_busy`, a
// proxy's) are shown at once; a poll passes retries 0 (its next turn is the retry).
const UNAVAILABLE_RETRIES = 3;
const UNAVAILABLE_WAIT_MAX = 10;

function retryAfterSeconds(res, data) {
  const header = Number(res.headers.get("Retry-After"));
  const secs = Number.isFinite(header) && header > 0 ? header : Number(data && data.retry_after) || 1;
  return Math.min(UNAVAILABLE_WAIT_MAX, Math.max(0.5, secs)) * (1 + Math.random() / 2);
}

async function api(method, path, body, retries = UNAVAILABLE_RETRIES) {
  const headers = { Accept: "application/json", "Accept-Language": document.documentElement.lang || "en" };
  headers["X-Device-Id"] = deviceId();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (S.token) headers.Authorization = "Token " + S.token;  // every try as the user who asked
  let res, data;
  for (let left = retries; ; left--) {
    try {
      res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {
      if (!navigator.onLine) setOffline(true);
      const err = new Error(gettext("The server cannot be reached. Check your connection."));
      err.body = {};
      throw err;
    }
    data = null;
    if (res.status !== 204) { try { data = await res.json(); } catch { data = null; } }
    if (res.status !== 503 || !data || data.code !== "unavailable" || left <= 0) break;
    await new Promise((resolve) => setTimeout(resolve, retryAfterSeconds(res, data) * 1000));
  }
  if (!res.ok) {
    const err = new Error((data && data.detail) || res.statusText);
    err.status = res.status;
    err.body = data || {};
    if (res.status === 401 && S.token) signedOut();
    throw err;
  }
  return data;
}

async function attempt(fn) {
  try { return await fn(); } catch (err) { toast(errorText(err)); offerAppeal(err.body); return undefined; }
}

// ------------------------------------------------------------------------------------------- sound
let audio = null;
function beep(freq = 660, ms = 120, type = "sine", volume = 0.08) {
  if (!S.sound) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = type;
    osc.frequency.value = freq;
    gain.gain.value = volume;
    osc.connect(gain).connect(audio.destination);
    const now = audio.currentTime;
    gain.gain.exponentialRampToValueAtTime(0.0001, now + ms / 1000);
    osc.start(now);
    osc.stop(now + ms / 1000);
  } catch { /* no audio here */ }
}
const sounds = {
  turn: () => { beep(660, 120); setTimeout(() => beep(880, 160), 130); },
  dice: () => { for (let i = 0; i < 4; i++) setTimeout(() => beep(180 + 60 * i, 50, "square", 0.04), i * 60); },
  card: () => beep(420, 60, "triangle", 0.06),
  tick: () => beep(1200, 40, "square", 0.05),
  chat: () => beep(990, 60, "sine", 0.04),
  end: () => { [523, 659, 784].forEach((f, i) => setTimeout(() => beep(f, 180), i * 170)); },
};

// ------------------------------------------------------------------------------------------- screens
const SCREENS = ["welcome", "home", "room", "stats", "leaderboard", "wallet", "games", "friends", "queue", "account",
                 "tournaments", "replay"];

function show(name) {
  $("#loading").hidden = true;
  for (const s of SCREENS) $("#screen-" + s).hidden = s !== name;
  $("#menu").hidden = !S.me;
  for (const b of document.querySelectorAll("#menu button")) {
    if (b.dataset.screen === name) b.setAttribute("aria-current", "page"); else b.removeAttribute("aria-current");
  }
  if (name !== "room") leaveRoomView();
  if (name !== "queue") clearInterval(S.queueTimer);
  if (name !== "tournaments") tournamentClose();
  const loaders = { home: loadHome, stats: loadStats, leaderboard: loadLeaderboard, friends: loadFriends,
                    queue: loadQueue, account: loadAccount, tournaments: loadTournaments, wallet: loadWallet,
                    games: loadMyGames };
  if (loaders[name]) loaders[name]();
  if (["stats", "leaderboard", "wallet", "games", "friends", "queue", "account"].includes(name)) {
    if (location.pathname !== "/" || location.hash !== "#" + name) history.pushState({}, "", "/#" + name);
  } else if (name === "home" && (location.pathname !== "/" || location.hash)) {
    history.pushState({}, "", "/");
  }
  const title = $("#screen-" + name + " h2");
  if (title) { title.setAttribute("tabindex", "-1"); title.focus({ preventScroll: false }); }
}

// ------------------------------------------------------------------------------------------- accounts
function signedIn(answer) {
  S.token = answer.token;
  S.me = answer.user;
  store.set("token", S.token);
  afterSignIn();
}

function signedOut() {
  S.token = null;
  S.me = null;
  store.remove("token");
  closeSocket();
  closeUserSocket();
  show("welcome");
}

async function afterSignIn() {
  loadNotices();
  openUserSocket();
  if (S.pendingFriend) {
    const code = S.pendingFriend;
    S.pendingFriend = null;
    await useFriendCode(code);
    return;
  }
  if (S.pendingTournament) {
    const code = S.pendingTournament;
    S.pendingTournament = null;
    openTournament(code);
    return;
  }
  if (S.pendingReplay) {
    const id = S.pendingReplay;
    S.pendingReplay = null;
    await openReplay(id);
    return;
  }
  if (S.pendingWatch) {
    const code = S.pendingWatch;
    S.pendingWatch = null;
    await watchRoom(code);
    return;
  }
  if (S.pendingCode) {
    const code = S.pendingCode;
    S.pendingCode = null;
    await enterRoom(code);
    return;
  }
  const screen = location.hash.slice(1);
  show(SCREENS.includes(screen) && screen !== "welcome" && screen !== "room" ? screen : "home");
}

function formData(form) { return Object.fromEntries(new FormData(form).entries()); }

function bindAccountForms() {
  $("#guest-form").addEventListener("submit", (e) => {
    e.preventDefault();
    attempt(async () => signedIn(await api("POST", "/api/auth/guest", { display_name: $("#guest-name").value.trim() })));
  });
  $("#login-form").addEventListener("submit", (e) => {
    e.preventDefault();
    attempt(async () => signedIn(await api("POST", "/api/auth/login", formData(e.target))));
  });
  $("#register-form").addEventListener("submit", (e) => {
    e.preventDefault();
    attempt(async () => signedIn(await api("POST", "/api/auth/register", formData(e.target))));
  });
  $("#upgrade-form").addEventListener("submit", (e) => {
    e.preventDefault();
    attempt(async () => {
      const body = { ...formData(e.target), display_name: S.me.display_name };
      const answer = await api("POST", "/api/auth/register", body);
      S.token = answer.token; S.me = answer.user; store.set("token", S.token);
      toast(gettext("Your account is ready; your games are kept."));
      loadAccount();
    });
  });
  $("#logout").addEventListener("click", () => attempt(async () => {
    await api("POST", "/api/auth/logout");
    signedOut();
  }));
}

async function loadAccount() {
  setNotifyButton();
  if (!S.me) return;
  $("#account-who").textContent = S.me.is_guest
    ? fmt(gettext("You play as the guest %(name)s."), { name: S.me.display_name })
    : fmt(gettext("You are %(name)s (user name %(username)s)."), { name: S.me.display_name, username: S.me.username });
  $("#upgrade-form").hidden = !S.me.is_guest;
}

// ------------------------------------------------------------------------------------------- home
const gameName = (game) => ({ chinchon: gettext("Chinchón"), chinchirorin: gettext("Chinchirorin") }[game] || game);

async function loadHome() {
  $("#hello").textContent = fmt(gettext("Hello, %(name)s!"), { name: S.me.display_name });
  loadMyRooms();
  if (await loadCatalogue()) renderCreateForm();
}

// The games' catalogue (GET /api/games/catalogue: rules' labels, CPU levels and speeds), read once. A room
// opened by its link or a reload comes before the home screen ever loaded it.
async function loadCatalogue() {
  if (!S.catalogue) {  // one request at a time (a reload runs the room's and the home's reads together)
    S.catalogueRead = S.catalogueRead || attempt(() => api("GET", "/api/games/catalogue"));
    S.catalogue = await S.catalogueRead;
    S.catalogueRead = null;
  }
  return S.catalogue;
}

async function loadMyRooms() {
  const rooms = await attempt(() => api("GET", "/api/me/rooms"));
  const list = $("#my-rooms");
  list.replaceChildren();
  if (!rooms || !rooms.length) { list.appendChild(h("li", { text: gettext("No rooms yet.") })); return; }
  for (const room of rooms) {
    list.appendChild(h("li", {},
      h("button", { type: "button", onclick: () => enterRoom(room.code) },
        fmt(gettext("%(game)s · room %(code)s · %(status)s"),
            { game: gameName(room.game), code: room.code, status: statusText(room.status) })),
      room.status === "finished" && room.game_id ? h("button", { type: "button", class: "small", "data-replay": room.game_id,
        onclick: () => openReplay(room.game_id) }, gettext("Replay")) : null));
  }
}

function statusText(status) {
  return { open: gettext("waiting to start"), playing: gettext("playing"), finished: gettext("finished"),
           closed: gettext("closed") }[status] || status;
}

// The create form, built from GET /api/games/catalogue (never a copy of the rules' settings).
let formGame = null;
let formPreset = null;

function renderCreateForm() {
  const cat = S.catalogue;
  formGame = formGame || cat.games[0].id;
  const game = cat.games.find((g) => g.id === formGame);
  if (formPreset && !game.presets.some((p) => p.id === formPreset)) formPreset = null;
  formPreset = formPreset || (game.presets[0] && game.presets[0].id) || null;
  const preset = game.presets.find((p) => p.id === formPreset);
  const box = $("#create-fields");
  box.replaceChildren();

  const gameGroup = h("fieldset", { class: "choices" }, h("legend", { text: gettext("Game") }));
  for (const g of cat.games) {
    const id = "create-game-" + g.id;
    gameGroup.appendChild(h("div", { class: "choice" },
      h("input", { type: "radio", name: "game", id, value: g.id, checked: g.id === formGame,
                   onchange: () => { formGame = g.id; formPreset = null; renderCreateForm(); } }),
      h("label", { for: id }, h("strong", { text: g.name }), " — ", g.description)));
  }
  box.appendChild(gameGroup);

  if (game.presets.length) {
    const sel = h("select", { id: "create-preset", onchange: (e) => { formPreset = e.target.value; renderCreateForm(); } },
      game.presets.map((p) => h("option", { value: p.id, selected: p.id === formPreset, text: p.name })));
    box.appendChild(h("div", { class: "field" }, h("label", { for: "create-preset", text: gettext("Rules") }), sel,
      h("p", { class: "hint", text: preset ? preset.description : "" })));
  }

  const range = preset ? preset.seats : game.seats;
  const seatSel = h("select", { id: "create-seats" });
  seatSel.appendChild(h("option", { value: "auto", text: gettext("As many as join (the computer fills in)"),
                                    selected: game.seats.default === "auto" }));
  for (let n = range.min; n <= range.max; n++) {
    seatSel.appendChild(h("option", { value: n, text: String(n), selected: n === game.seats.default }));
  }
  box.appendChild(h("div", { class: "field" }, h("label", { for: "create-seats", text: gettext("Seats") }), seatSel));

  const optionSelect = (id, label, items, valueOf, labelOf, selected) => h("div", { class: "field" },
    h("label", { for: id, text: label }),
    h("select", { id }, items.map((it) => h("option", { value: JSON.stringify(valueOf(it)), text: labelOf(it),
                                                          selected: valueOf(it) === selected }))));
  box.appendChild(optionSelect("create-turn", gettext("Time per turn"), cat.turn_seconds, (t) => t.value, (t) => t.label, null));
  box.appendChild(optionSelect("create-cpu-level", gettext("Computer level"), cat.cpu_levels, (c) => c.id, (c) => c.label, "normal"));
  box.appendChild(optionSelect("create-cpu-speed", gettext("Computer speed"), cat.cpu_speeds, (c) => c.id, (c) => c.label, "normal"));
  const rankedId = "create-ranked";
  box.appendChild(h("div", { class: "field check" },
    h("input", { type: "checkbox", id: rankedId, disabled: S.me.is_guest }),
    h("label", { for: rankedId, text: S.me.is_guest ? gettext("Ranked (needs an account, friends only, no computer)")
                                                     : gettext("Ranked (registered friends only, no computer)") })));

  const details = h("details", { class: "settings" }, h("summary", { text: gettext("All rules settings") }));
  for (const st of game.settings) details.appendChild(settingField(st, preset));
  box.appendChild(details);
}

function settingValue(st, preset) {
  if (preset && st.presets && Object.prototype.hasOwnProperty.call(st.presets, preset.id)) return st.presets[preset.id];
  return st.default;
}

function settingField(st, preset) {
  const id = "rule-" + st.name;
  const value = settingValue(st, preset);
  let input;
  if (st.type === "boolean") {
    input = h("input", { type: "checkbox", id, checked: !!value, "data-setting": st.name, "data-type": st.type });
    return h("div", { class: "field check" }, input, h("label", { for: id, text: st.label }),
      h("p", { class: "hint", text: st.description }));
  }
  if (st.type === "choice") {
    input = h("select", { id, "data-setting": st.name, "data-type": st.type },
      st.choices.map((c) => h("option", { value: JSON.stringify(c.value), text: c.label,
                                          selected: JSON.stringify(c.value) === JSON.stringify(value) })));
  } else if (st.type === "integer") {
    input = h("input", { type: "number", id, value, min: st.min, max: st.max, step: 1, required: true,
                         "data-setting": st.name, "data-type": st.type });
  } else {
    input = h("input", { id, value: (value || []).join(", "), "data-setting": st.name, "data-type": st.type,
                         inputmode: "numeric", pattern: "[0-9 ,]+" });
  }
  return h("div", { class: "field" }, h("label", { for: id, text: st.label }), input,
    h("p", { class: "hint", text: st.description }));
}

function readSetting(input) {
  const type = input.dataset.type;
  if (type === "boolean") return input.checked;
  if (type === "choice") return JSON.parse(input.value);
  if (type === "integer") return Number(input.value);
  return input.value.split(/[\s,]+/).filter(Boolean).map(Number);
}

async function createRoom(e) {
  e.preventDefault();
  const game = S.catalogue.games.find((g) => g.id === formGame);
  const preset = game.presets.find((p) => p.id === formPreset);
  const rules = {};
  if (preset) rules.preset = preset.id;
  for (const input of document.querySelectorAll("#create-fields [data-setting]")) {
    const st = game.settings.find((s) => s.name === input.dataset.setting);
    const value = readSetting(input);
    if (JSON.stringify(value) !== JSON.stringify(settingValue(st, preset))) rules[st.name] = value;
  }
  const seats = $("#create-seats").value;
  const body = {
    game: game.id,
    seats: seats === "auto" ? "auto" : Number(seats),
    rules,
    turn_seconds: JSON.parse($("#create-turn").value),
    cpu_level: JSON.parse($("#create-cpu-level").value),
    cpu_speed: JSON.parse($("#create-cpu-speed").value),
    ranked: $("#create-ranked").checked,
  };
  const room = await attempt(() => api("POST", "/api/rooms", body));
  if (room) openRoom(room);
}

// ------------------------------------------------------------------------------------------- rooms
async function enterRoom(code) {
  code = code.trim().toUpperCase();
  S.watching = false;
  const room = await attempt(() => api("POST", `/api/rooms/${encodeURIComponent(code)}/join`));
  if (room) openRoom(room); else if (!$("#screen-room").hidden) show("home");
  else if (!S.me) show("welcome"); else show("home");
}

function openRoom(room) {
  S.room = room;
  S.code = room.code;
  S.view = null;
  S.selected = null;
  S.seenChat = new Set();
  S.seatLevels = {};
  $("#chat-log").replaceChildren();
  const path = (S.watching ? "/watch/" : "/room/") + room.code;
  if (location.pathname !== path) history.pushState({}, "", path);
  show("room");
  $("#chat-form").hidden = $("#chat-phrases").hidden = $("#chat-emoji").hidden = !!S.watching;
  renderRoom();
  connect();
  if (!S.watching) loadChat();
  if (!S.catalogue) loadCatalogue().then((cat) => { if (cat && S.room && S.code === room.code) renderRoom(); });
}

function leaveRoomView() {
  voice.leave();
  if (S.code) { closeSocket(); S.code = null; S.room = null; S.view = null; S.watching = false; }
}

function closeSocket() {
  voice.socketClosed();
  clearInterval(S.pingTimer);
  if (S.ws) { S.ws.onclose = null; S.ws.close(); S.ws = null; }
}

function connect() {
  closeSocket();
  const code = S.code;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/rooms/${code}/?token=${encodeURIComponent(S.token)}`
    + `&device=${encodeURIComponent(deviceId())}`);
  S.ws = ws;
  setConn(gettext("Connecting…"));
  ws.onopen = () => {
    S.wsRetry = 0;
    setConn("");
    S.pingTimer = setInterval(() => send({ type: "ping" }), 20000);
  };
  ws.onmessage = (ev) => { let msg; try { msg = JSON.parse(ev.data); } catch { return; } onMessage(msg); };
  ws.onclose = (ev) => {
    clearInterval(S.pingTimer);
    if (S.ws !== ws || S.code !== code) return;
    voice.socketClosed();
    S.ws = null;
    if (ev.code === 4401) { toast(gettext("Please sign in again.")); signedOut(); return; }
    if (ev.code === 4403 || ev.code === 4404) {
      toast(S.watching ? gettext("This table can no longer be watched.") : gettext("You no longer have a seat in this room."));
      S.code = null; show("home"); return;
    }
    if (ev.code === 4409 || ev.code === 4410) { toast(gettext("Your account cannot play now.")); signedOut(); return; }
    const wait = Math.min(10000, 500 * 2 ** S.wsRetry++);
    setConn(gettext("Connection lost; reconnecting…"));
    setTimeout(() => { if (S.code === code && !S.ws) connect(); }, wait);
  };
}

function setConn(text) { $("#conn-state").textContent = text; }

function send(msg) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) { S.ws.send(JSON.stringify(msg)); return true; }
  return false;
}

function onMessage(msg) {
  if (typeof msg.type === "string" && msg.type.startsWith("voice_") && voice.onMessage(msg)) return;
  if (msg.type === "room") {
    if (!S.room || msg.room.version >= S.room.version || msg.room.code !== S.room.code) S.room = msg.room;
    renderRoom();
  } else if (msg.type === "game") {
    takeView(msg.view, msg.events || []);
  } else if (msg.type === "chat") {
    addChat(msg.message, true);
  } else if (msg.type === "presence") {  // the lobby's seats and the table's players
    const seat = S.room && S.room.seats.find((x) => x.index === msg.seat);
    if (seat) seat.connected = msg.connected;
    const p = S.view && S.view.players.find((x) => x.seat === msg.seat);
    if (p) { p.connected = msg.connected; p.away = msg.away; p.cpu_playing = msg.cpu_playing; }
    renderRoom();
  } else if (msg.type === "achievement") {
    const name = seatName(msg.seat);
    achievementName(msg.achievement).then((achievement) =>
      toast(fmt(gettext("%(name)s earned the achievement “%(achievement)s”."), { name, achievement })));
  } else if (msg.type === "chat_hidden") {
    const li = document.querySelector(`#chat-log [data-id="${msg.id}"]`);
    if (li) li.remove();
  } else if (msg.type === "room_closed" || msg.type === "kicked") {
    closeSocket();  // the server closes it too (4404 / 4403): no reconnection
    S.code = null;
    toast(msg.type === "kicked" ? gettext("A moderator removed you from this room.")
                                : msg.detail || gettext("A moderator closed this room."));
    show("home");
  } else if (msg.type === "notice") {
    showNotices([msg]);
  } else if (msg.type === "warning") {
    toast(fmt(gettext("Warning from a moderator: %(detail)s"), { detail: msg.detail }));
  } else if (msg.type === "queue" && msg.status === "matched") {
    enterRoom(msg.room);
  } else if (msg.type === "error") {
    voice.onError(msg);
    S.sent = null;
    if (msg.view) takeView(msg.view, []); else renderRoom();
    if (msg.code !== "stale_seq") toast(errorText({ body: msg }));
  }
}

function takeView(view, events) {
  const old = S.view;
  if (old && old.id === view.id && view.seq < old.seq) return;
  const wasMine = old && old.id === view.id && old.legal_actions.length > 0;
  S.view = view;
  S.motion = motionOf(view, events);
  if (!old || old.id !== view.id || old.seq !== view.seq) S.selected = null;
  for (const ev of events) {
    if (ev.type === "roll" || ev.type === "first_dealer_roll") sounds.dice();
    else if (ev.type === "draw" || ev.type === "discard") sounds.card();
  }
  const draw = events.find((ev) => ev.type === "mano_draw");
  if (draw) { sounds.card(); toast(manoDrawText(draw)); }
  if (view.status !== "playing" && old && old.status === "playing") sounds.end();
  if (view.legal_actions.length && !wasMine) { sounds.turn(); announce(gettext("Your turn.")); }
  renderRoom();
}

// The draw for the first mano (Chinchón, first_mano "high_card"): every round's cards, then who is mano.
function manoDrawText(ev) {
  const texts = ev.rounds.map((round, i) => {
    const cards = Object.entries(round)
      .map(([seat, card]) => fmt(gettext("%(name)s: %(card)s"), { name: seatName(Number(seat)), card: cardName(card) }))
      .join(", ");
    return fmt(i === 0 ? gettext("Cards drawn for the mano: %(cards)s.") : gettext("A tie, drawn again: %(cards)s."),
      { cards });
  });
  texts.push(fmt(gettext("%(name)s draws the highest card and is mano."), { name: seatName(ev.mano) }));
  return texts.join(" ");
}

function seatName(seat) {
  const shown = S.view || R.view;
  const p = shown && shown.players.find((x) => x.seat === seat);
  if (p) return p.display_name;
  const s = S.room && S.room.seats.find((x) => x.index === seat);
  return s && s.user ? s.user.display_name : fmt(gettext("Seat %(n)s"), { n: seat + 1 });
}

async function roomCall(method, path, body) {
  const room = await attempt(() => api(method, `/api/rooms/${S.code}${path}`, body));
  if (room && room.code) { S.room = room; renderRoom(); }
  return room;
}

function isHost() { return S.room && S.room.host && S.me && S.room.host.id === S.me.id; }

function renderRoom() {
  if (!S.room || $("#screen-room").hidden) return;
  const room = S.room;
  $("#room-title").textContent = fmt(gettext("%(game)s · room %(code)s"), { game: gameName(room.game), code: room.code });
  const body = $("#room-body");
  const focused = document.activeElement && document.activeElement.id;
  body.replaceChildren();
  const hasView = S.view && S.view.id === room.game_id;
  if (hasView) body.appendChild(renderTable(S.view));
  if (S.watching) body.appendChild(renderWatching(room));
  else if (!hasView || room.status !== "playing") body.appendChild(renderLobby(room, hasView));
  else if (room.spectators_allowed) body.appendChild(renderWatchLink(room));
  if (hasView && S.motion && S.motion.payments) flyPayments(body.querySelector(".felt"), S.view, S.motion.payments);
  S.motion = null;
  voice.render($("#voice"), room, h);
  if (focused) { const el = document.getElementById(focused); if (el) el.focus({ preventScroll: true }); }
  tick();
}

function mySeat() {
  const seat = S.room && S.me && S.room.seats.find((x) => x.user && x.user.id === S.me.id && !x.left);
  return seat ? seat.index : null;
}

function renderLobby(room, afterGame) {
  const box = h("section", { class: "lobby", "aria-label": gettext("Lobby") });
  if (!afterGame) box.appendChild(renderShare(room));
  if (room.status !== "playing") box.appendChild(renderInvite(room));
  const list = h("ol", { class: "seats" });
  for (const seat of room.seats) {
    const level = seat.cpu && levelText(seat.cpu_level);  // none before the catalogue: never the raw id
    const who = seat.user ? seat.user.display_name
      : seat.cpu ? (level ? fmt(gettext("Computer (%(level)s)"), { level }) : gettext("Computer")) : gettext("Empty seat");
    const tags = [];
    if (seat.user && room.host && seat.user.id === room.host.id) tags.push(gettext("host"));
    if (seat.user && S.me && seat.user.id === S.me.id) tags.push(gettext("you"));
    if (seat.user && !seat.connected) tags.push(gettext("offline"));
    const li = h("li", { class: "seat" + (seat.user || seat.cpu ? "" : " empty") },
      h("span", { class: "seat-no", text: fmt(gettext("Seat %(n)s"), { n: seat.index + 1 }) }),
      h("span", { class: "seat-who", text: who }),
      tags.length ? h("span", { class: "tags", text: tags.join(" · ") }) : null);
    if (isHost() && room.status !== "playing") {
      const free = !seat.user && !seat.cpu;
      if (((free && !room.ranked) || seat.cpu) && S.catalogue) {  // the computer's level, per seat
        const id = "seat-level-" + seat.index;
        const levels = S.catalogue.cpu_levels;
        li.appendChild(h("label", { for: id, class: "sr-only",
          text: fmt(gettext("Computer level in seat %(n)s"), { n: seat.index + 1 }) }));
        // An empty seat's choice is kept until "Add computer" (a room message redraws the seats meanwhile).
        const chosen = seat.cpu_level || S.seatLevels[seat.index] || room.cpu_level;
        li.appendChild(h("select", { id, onchange: (e) => {
          if (seat.cpu) roomCall("POST", "/cpu", { seat: seat.index, level: e.target.value });
          else S.seatLevels[seat.index] = e.target.value;
        } }, levels.map((l) => h("option", { value: l.id, text: l.label, selected: l.id === chosen }))));
      }
      if (free && !room.ranked) {
        li.appendChild(h("button", { type: "button", "data-testid": "add-cpu",
          onclick: () => {
            const picked = $("#seat-level-" + seat.index);
            const level = picked ? picked.value : S.seatLevels[seat.index] || room.cpu_level;
            delete S.seatLevels[seat.index];  // the CPU's own level shows from now on
            roomCall("POST", "/cpu", { seat: seat.index, level });
          },
          "aria-label": fmt(gettext("Add a computer in seat %(n)s"), { n: seat.index + 1 }) }, gettext("Add computer")));
      } else if (seat.cpu || (seat.user && seat.user.id !== S.me.id)) {
        li.appendChild(h("button", { type: "button", onclick: () => roomCall("DELETE", `/seats/${seat.index}`),
          "aria-label": fmt(gettext("Clear seat %(n)s"), { n: seat.index + 1 }) }, gettext("Remove")));
      }
    }
    if (seat.user && S.me && seat.user.id !== S.me.id) li.append(friendButton(seat.user) || "");
    li.append(reportPlayerButton(seat.index, seat.user ? seat.user.display_name : "") || "");
    list.appendChild(li);
  }
  box.append(h("h3", { text: gettext("Seats") }), list);
  box.appendChild(renderRoomSettings(room));
  const actions = h("div", { class: "actions" });
  if (isHost() && room.status === "open") {
    actions.appendChild(h("button", { type: "button", class: "primary", id: "start-game",
      onclick: () => roomCall("POST", "/start") }, gettext("Start the game")));
  } else if (room.status === "open") {
    actions.appendChild(h("p", { text: gettext("Waiting for the host to start. Empty seats get the computer.") }));
  }
  if (isHost() && room.status === "finished") {
    actions.appendChild(h("button", { type: "button", class: "primary", id: "rematch",
      onclick: () => roomCall("POST", "/rematch") }, gettext("Rematch")));
  }
  actions.appendChild(h("button", { type: "button", id: "leave-room", onclick: async () => {
    if (await roomCall("POST", "/leave")) { S.code = null; show("home"); }
  } }, gettext("Leave the room")));
  box.appendChild(actions);
  return box;
}

// The socket's achievement message names it in English (API.md): the page shows the name of its own
// language, from GET /api/achievements (read once; the English name if that read fails).
async function achievementName(achievement) {
  // One read for the several achievements a game's end can bring; none kept when it fails.
  S.achievementNames = S.achievementNames || api("GET", "/api/achievements")
    .then((list) => Object.fromEntries(list.map((a) => [a.id, a.name])))
    .catch(() => { S.achievementNames = null; return {}; });
  return (await S.achievementNames)[achievement.id] || achievement.name;
}

function levelText(level) {
  const found = S.catalogue && S.catalogue.cpu_levels.find((c) => c.id === level);
  return found ? found.label : "";
}

function renderShare(room) {
  const url = room.invite_url;
  const text = fmt(gettext("Join my %(game)s table: %(url)s (code %(code)s)"), { game: gameName(room.game), url, code: room.code });
  const box = h("div", { class: "share" },
    h("p", {}, gettext("Room code"), " ", h("strong", { class: "code", id: "room-code", text: room.code })),
    h("label", { for: "invite-url", text: gettext("Invitation link") }),
    h("input", { id: "invite-url", readonly: true, value: url, onfocus: (e) => e.target.select() }),
    renderWatchLink(room));
  const buttons = h("div", { class: "actions" },
    h("button", { type: "button", id: "copy-link", onclick: async () => {
      try { await navigator.clipboard.writeText(url); toast(gettext("Link copied.")); }
      catch { $("#invite-url").select(); toast(gettext("Select the link and copy it.")); }
    } }, gettext("Copy the link")));
  if (navigator.share) {
    buttons.appendChild(h("button", { type: "button", onclick: () => navigator.share({ title: "Chinchi", text, url }).catch(() => {}) },
      gettext("Share…")));
  }
  buttons.appendChild(h("a", { class: "button", href: "https://wa.me/?text=" + encodeURIComponent(text), target: "_blank",
                                rel: "noopener" }, gettext("Send by WhatsApp")));
  box.appendChild(buttons);
  return box;
}

function renderRoomSettings(room) {
  // Kept open across the redraws a room message brings.
  const box = h("details", { class: "settings", open: !!S.settingsOpen,
                             ontoggle: (e) => { S.settingsOpen = e.target.open; } }, h("summary", { text: gettext("Room settings") }));
  const turnLabel = room.turn_seconds ? fmt(gettext("%(s)s seconds"), { s: room.turn_seconds }) : gettext("no limit");
  const dl = h("dl", { class: "rules" },
    h("dt", { text: gettext("Time per turn") }), h("dd", { text: turnLabel }),
    h("dt", { text: gettext("Computer level") }), h("dd", { text: levelText(room.cpu_level) }),
    h("dt", { text: gettext("Ranked") }), h("dd", { text: room.ranked ? gettext("yes") : gettext("no") }));
  for (const [k, v] of Object.entries(room.rules || {})) {
    dl.appendChild(h("dt", { text: settingLabel(room.game, k) }));
    dl.appendChild(h("dd", { text: settingText(room.game, k, v) }));
  }
  box.appendChild(dl);
  if (isHost()) {
    box.appendChild(h("div", { class: "field check" },
      h("input", { type: "checkbox", id: "room-spectators", checked: !!room.spectators_allowed,
                   onchange: (e) => roomCall("PATCH", "", { spectators_allowed: e.target.checked }) }),
      h("label", { for: "room-spectators", text: gettext("Let people watch with the watch link") })));
  }
  if (isHost() && room.status !== "playing" && S.catalogue) {
    const speed = h("select", { id: "room-cpu-speed", onchange: (e) => roomCall("PATCH", "", { cpu_speed: e.target.value }) },
      S.catalogue.cpu_speeds.map((c) => h("option", { value: c.id, text: c.label, selected: c.id === room.cpu_speed })));
    box.appendChild(h("div", { class: "field" }, h("label", { for: "room-cpu-speed", text: gettext("Computer speed") }), speed));
  }
  return box;
}

// A game's entry in the games' catalogue (null before it is read).
const catalogueGame = (game) => (S.catalogue && S.catalogue.games.find((x) => x.id === game)) || null;

// A rule's value in words: the preset's name, a choice's label, yes/no, numbers as they are.
function settingText(game, name, value) {
  const g = catalogueGame(game);
  const preset = name === "preset" && g && g.presets.find((p) => p.id === value);
  if (preset) return preset.name;
  const st = g && g.settings.find((s) => s.name === name);
  if (typeof value === "boolean") return value ? gettext("yes") : gettext("no");
  const choice = st && st.choices && st.choices.find((c) => JSON.stringify(c.value) === JSON.stringify(value));
  if (choice) return choice.label;
  return Array.isArray(value) ? value.join(", ") : String(value);
}

function settingLabel(game, name) {
  if (name === "preset") return gettext("Rules");  // the creation form's word for it
  const g = catalogueGame(game);
  const st = g && g.settings.find((s) => s.name === name);
  return st ? st.label : name;
}

function friendButton(user) {
  if (!user || user.is_guest || !S.me) return null;
  return h("button", { type: "button", class: "small", onclick: () => addFriend(user.id),
    "aria-label": fmt(gettext("Add %(name)s as a friend"), { name: user.display_name }) }, gettext("Add friend"));
}

// ------------------------------------------------------------------------------------------- the table
// The seats sit around a felt oval with the viewer at the bottom; the stock and the discard pile (Chinchón)
// or the dice bowl (Chinchirorin) in the middle; the viewer's hand and moves below. The socket's events
// animate what they change (CSS classes set for one render, each <= 400 ms, quicker at the CPU's fast
// speed, none under prefers-reduced-motion); nothing waits for an animation.
function renderTable(view) {
  const fast = S.room && S.room.cpu_speed === "fast";
  const box = h("section", { class: "table " + view.game, "data-game": view.id, "aria-label": gettext("Game table"),
                             style: `--anim: ${fast ? 200 : 350}ms` });
  box.appendChild(renderTurnLine(view));
  box.appendChild(h("div", { class: "felt", "data-seats": view.players.length }, renderPlayers(view),
    h("div", { class: "centre" }, view.game === "chinchon" ? renderPiles(view) : renderBowl(view))));
  box.appendChild(view.game === "chinchon" ? renderChinchon(view) : renderChinchirorin(view));
  box.appendChild(renderActions(view));
  if (view.status !== "playing") box.appendChild(renderResult(view, true));
  return box;
}

function renderTurnLine(view) {
  let text;
  if (view.status !== "playing") text = gettext("The game is over.");
  else if (view.legal_actions.length) text = gettext("Your turn.");
  else if (view.turn !== null && view.turn !== undefined) text = fmt(gettext("%(name)s's turn."), { name: seatName(view.turn) });
  else if (view.awaiting.length) text = fmt(gettext("Waiting for %(names)s."), { names: view.awaiting.map(seatName).join(", ") });
  else text = "";
  return h("div", { class: "turnline" + (view.legal_actions.length ? " mine" : "") }, h("span", { id: "turn-text", text }));
}

// The countdown on the seat whose turn it is; a tick sound in the last 10 s of the viewer's own turn.
function tick() {
  const el = document.getElementById("clock");
  if (!el) return;
  const deadline = el.dataset.deadline;
  if (!deadline) { el.textContent = ""; return; }
  const left = Math.max(0, Math.ceil((Date.parse(deadline) - Date.now()) / 1000));
  el.textContent = fmt(gettext("%(s)s s"), { s: left });
  el.classList.toggle("urgent", left <= 10);
  const mine = el.dataset.mine === "true";
  if (mine && left <= 10 && left > 0 && tick.last !== deadline + left) { tick.last = deadline + left; sounds.tick(); }
}
setInterval(tick, 250);

const motionOff = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// Where seat ``seat`` sits on the oval, in % of the felt: the viewer (or seat 1 for a spectator) at the
// bottom, the others clockwise.
function seatPlace(view, seat) {
  const n = view.players.length;
  const bottom = view.you ?? 0;
  const r = (seat - bottom + n) % n;
  const angle = (Math.PI / 2) + (r * 2 * Math.PI) / n;
  return { x: 50 + 41 * Math.cos(angle), y: 50 + 39 * Math.sin(angle) };
}

function renderPlayers(view) {
  const list = h("ul", { class: "players", "aria-label": gettext("Players") });
  const table = view.table || {};
  const m = S.motion || {};
  const deltas = {};
  const lh = table.last_hand;
  if (view.game === "chinchirorin" && lh && !Object.keys(table.rolls || {}).length) {
    for (const p of lh.payments || []) {
      deltas[p.from] = (deltas[p.from] || 0) - p.amount;
      deltas[p.to] = (deltas[p.to] || 0) + p.amount;
    }
  }
  const clockSeat = view.status === "playing" && view.deadline ? (view.turn ?? view.awaiting[0]) : null;
  for (const p of view.players) {
    const tags = [];
    if (p.seat === view.you) tags.push(gettext("you"));
    if (p.cpu) tags.push(gettext("computer"));
    else if (p.away) tags.push(gettext("away (computer plays)"));
    else if (!p.connected) tags.push(gettext("offline"));
    if (p.out) tags.push(gettext("out"));
    if (p.resigned) tags.push(gettext("resigned"));
    if (p.reentries) tags.push(fmt(gettext("re-entered %(n)s×"), { n: p.reentries }));
    const amount = view.game === "chinchirorin"
      ? fmt(ngettext("%(n)s point", "%(n)s points", p.points), { n: p.points })
      : fmt(gettext("score %(n)s"), { n: p.score });
    const active = view.awaiting.includes(p.seat) && view.status === "playing";
    const where = seatPlace(view, p.seat);
    const li = h("li", { class: "player" + (active ? " active" : "") + (p.seat === view.you ? " me" : ""),
                         "data-seat": p.seat, "aria-current": active ? "true" : null,
                         style: `left: ${where.x.toFixed(1)}%; top: ${where.y.toFixed(1)}%` },
      h("span", { class: "pname-row" }, h("span", { class: "pname", text: p.display_name }), levelBadge(p.seat)),
      h("span", { class: "pamount", text: amount }));
    if (view.game === "chinchirorin") {
      const dealer = table.dealer === p.seat;
      li.appendChild(h("span", { class: "role" + (dealer ? " dealer" + (m.dealer ? " anim-pop" : "") : ""),
        text: dealer ? gettext("dealer") : pgettext("chinchirorin role", "player") }));
      if (table.bets && table.bets[p.seat] !== undefined) {
        li.appendChild(h("span", { class: "pextra", text: fmt(gettext("bet %(n)s"), { n: table.bets[p.seat] }) }));
      }
      if (deltas[p.seat]) {
        li.appendChild(h("span", { class: "delta " + (deltas[p.seat] > 0 ? "up" : "down") + (m.settle ? " anim-pop" : ""),
          text: (deltas[p.seat] > 0 ? "+" : "−") + Math.abs(deltas[p.seat]) }));
      }
    }
    if (view.game === "chinchon") {
      if (table.mano === p.seat) li.appendChild(h("span", { class: "role dealer", text: gettext("mano") }));
      const n = table.hand_sizes && table.hand_sizes[p.seat];
      if (n !== undefined && p.seat !== view.you) {
        const backs = h("span", { class: "backs" + (m.drewSeat === p.seat ? " anim-draw" : "") + (m.deal ? " anim-deal" : ""),
          role: "img", "aria-label": fmt(ngettext("%(n)s card", "%(n)s cards", n), { n }) });
        for (let i = 0; i < Math.min(n, 8); i++) backs.appendChild(cardBackSvg());
        backs.appendChild(h("span", { class: "backs-count", "aria-hidden": "true", text: String(n) }));
        li.appendChild(backs);
      }
    }
    if (tags.length) li.appendChild(h("span", { class: "tags", text: tags.join(" · ") }));
    if (p.seat === clockSeat) {
      li.appendChild(h("span", { class: "seat-clock", id: "clock", "data-deadline": view.deadline,
        "data-mine": view.legal_actions.length ? "true" : "false", role: "timer", "aria-label": gettext("Time left") }));
    }
    if (active) li.appendChild(h("span", { class: "sr-only", text: gettext("(playing now)") }));
    const report = reportPlayerButton(p.seat, p.display_name);
    if (report) li.appendChild(report);
    list.appendChild(li);
  }
  return list;
}

// Points fly from the payer's seat to the payee's when a hand settles (after the felt is on screen).
function flyPayments(felt, view, payments) {
  if (motionOff() || !felt || !felt.animate) return;
  for (const p of payments) {
    const a = seatPlace(view, p.from);
    const b = seatPlace(view, p.to);
    const chip = h("span", { class: "chip-fly", "aria-hidden": "true", text: String(p.amount) });
    felt.appendChild(chip);
    const w = felt.clientWidth / 100;
    const hh = felt.clientHeight / 100;
    const anim = chip.animate([{ transform: `translate(${a.x * w}px, ${a.y * hh}px)`, opacity: 1 },
                               { transform: `translate(${b.x * w}px, ${b.y * hh}px)`, opacity: 0.2 }],
                              { duration: S.room && S.room.cpu_speed === "fast" ? 200 : 380, easing: "ease-in-out" });
    anim.onfinish = () => chip.remove();
  }
}

// The motion the last events call for: {throw, hand, settle, payments, dealer, deal, drawSeat, drewCard,
// discard, reveal}. Read by the next render only.
function motionOf(view, events) {
  const m = {};
  for (const ev of events) {
    if (ev.type === "throw") m.throw = true;
    else if (ev.type === "hand" && view.game === "chinchirorin") m.hand = true;
    else if (ev.type === "hand" && view.game === "chinchon") m.deal = true;
    else if (ev.type === "payment") (m.payments = m.payments || []).push(ev);
    else if (ev.type === "hand_settled") m.settle = true;
    else if (ev.type === "dealer") m.dealer = true;
    else if (ev.type === "draw") { m.drewSeat = ev.seat; if (ev.card) m.drewCard = ev.card; }
    else if (ev.type === "drawn") m.drewCard = ev.card;
    else if (ev.type === "discard") m.discard = true;
    else if (ev.type === "close" || ev.type === "reveal") m.reveal = true;
    else if (ev.type === "first_dealer_roll") m.throw = true;
  }
  return m;
}

// An action sent and not yet answered: its buttons wait for the next view (no double sends).
const busy = () => S.sent === S.view.seq;

function act(action) {
  if (busy()) return;
  S.sent = S.view.seq;
  const body = { ...action, seq: S.view.seq };
  const actionId = `${S.view.id}-${S.view.seq}-${Math.random().toString(36).slice(2, 10)}`;
  if (!send({ type: "action", action: body, action_id: actionId })) {  // no socket now: the same over REST
    api("POST", `/api/games/${S.view.id}/actions`, { ...body, action_id: actionId })
      .then((view) => takeView(view, []))
      .catch((err) => {
        S.sent = null;
        if (err.body && err.body.view) takeView(err.body.view, []);
        else { if (err.body.code !== "stale_seq") toast(errorText(err)); renderRoom(); }
      });
  }
  renderRoom();
}

function actionButton(label, action, extra = {}) {
  return h("button", { type: "button", class: "act " + (extra.class || ""), "data-action": action.type,
                       "data-value": action.amount ?? action.source ?? action.card ?? (action.down ?? action.accept ?? ""),
                       "aria-label": extra.aria || null, disabled: busy(), onclick: () => act(action) }, label);
}

function renderActions(view) {
  const bar = h("div", { class: "actions game-actions", role: "group", "aria-label": gettext("Your moves") });
  const all = [...view.legal_actions, ...view.other_actions];
  for (const a of all) {
    if (a.type === "resign") continue;
    if (view.game === "chinchon" && ["discard", "close", "draw"].includes(a.type)) continue;  // on the cards
    bar.appendChild(actionButton(actionLabel(a, view), a, { class: view.legal_actions.includes(a) ? "primary" : "" }));
  }
  if (view.game === "chinchon" && view.legal_actions.some((a) => a.type === "discard" || a.type === "close")) {
    const card = S.selected;
    const discard = view.legal_actions.find((a) => a.type === "discard" && a.card === card);
    const close = view.legal_actions.find((a) => a.type === "close" && a.card === card);
    bar.appendChild(h("button", { type: "button", class: "act primary", id: "discard-button", "data-action": "discard",
      disabled: !discard || busy(), onclick: () => discard && act(discard) },
      card ? fmt(gettext("Discard %(card)s"), { card: cardName(card) }) : gettext("Choose a card to discard")));
    if (view.legal_actions.some((a) => a.type === "close")) {
      bar.appendChild(h("button", { type: "button", class: "act", id: "close-button", "data-action": "close", disabled: !close || busy(),
        onclick: () => close && act(close) },
        card && close ? fmt(gettext("Close, %(card)s face down"), { card: cardName(card) }) : gettext("Close (choose the face-down card)")));
    }
  }
  const resign = all.find((a) => a.type === "resign");
  if (resign) {
    bar.appendChild(h("button", { type: "button", class: "act danger", id: "resign", onclick: () => {
      if (confirm(gettext("Resign this game? The computer will not play for you; you stand last."))) act(resign);
    } }, gettext("Resign")));
  }
  if (view.status === "playing") {
    const me = view.players.find((p) => p.seat === view.you);
    if (me && !me.resigned) {
      bar.appendChild(h("button", { type: "button", class: "act", id: "autoplay", "aria-pressed": me.away ? "true" : "false",
        onclick: () => attempt(async () => takeView(await api("POST", `/api/games/${view.id}/autoplay`, { on: !me.away }), [])) },
        me.away ? gettext("Take my seat back") : gettext("Let the computer play for me")));
    }
  }
  return bar;
}

function actionLabel(a, view) {
  switch (a.type) {
    case "bet": {
      const mine = view.table && view.table.bets && view.table.bets[view.you];
      return mine !== undefined ? fmt(gettext("Change bet to %(n)s"), { n: a.amount }) : fmt(gettext("Bet %(n)s"), { n: a.amount });
    }
    case "roll": return gettext("Roll the dice");
    case "step_down": return a.down ? gettext("Step down as dealer") : gettext("Keep dealing");
    case "reenter": return a.accept ? gettext("Re-enter the game") : gettext("Stay out");
    default: return a.type;
  }
}

function renderResult(view, replayLink = false) {
  const box = h("section", { class: "result", "aria-labelledby": "result-title" },
    h("h3", { id: "result-title", text: gettext("Final standing") }));
  const result = view.result || { standing: [] };
  const reasons = {
    rounds_complete: gettext("All rounds were played."), zero_points: gettext("A player ran out of points."),
    last_seat: gettext("Only one player is left in."), chinchon: gettext("Chinchón! A seven-card run wins the game."),
    all_out: gettext("Every player went out in the same hand."), resignations: gettext("The others resigned."),
    aborted: gettext("The game was abandoned."),
  };
  box.appendChild(h("p", { id: "result-reason", text: reasons[result.reason] || result.reason || "" }));
  const ol = h("ol", { class: "standing plain-list" });
  for (const r of result.standing) {
    const amount = r.points !== undefined ? fmt(ngettext("%(n)s point", "%(n)s points", r.points), { n: r.points }) : fmt(gettext("score %(n)s"), { n: r.score });
    ol.appendChild(h("li", { class: r.seat === view.you ? "me" : "" },
      fmt(gettext("%(place)s. %(name)s — %(amount)s"), { place: r.place, name: seatName(r.seat), amount })));
  }
  box.appendChild(ol);
  if (replayLink) {
    box.appendChild(h("a", { class: "button", id: "replay-link", href: `/replay/${view.id}`,
      onclick: (e) => { e.preventDefault(); openReplay(view.id); } }, gettext("Watch the replay")));
  }
  if (view.id && view.you !== null && view.you !== undefined) {
    box.appendChild(h("p", { class: "report-game" }, reportButton("game", view.id, gettext("Report this game")),
                      " ", gettext("Report this game")));
  }
  return box;
}

// Chinchirorin -----------------------------------------------------------------------------------------
function handName(hand) {
  if (!hand) return "";
  const v = hand.value;
  switch (hand.hand) {
    case "pinzoro": return gettext("Pinzoro (1-1-1)");
    case "arashi": return fmt(gettext("Arashi of %(n)s"), { n: v });
    case "shigoro": return gettext("Shigoro (4-5-6)");
    case "point": return fmt(gettext("Point %(n)s"), { n: v });
    case "hifumi": return gettext("Hifumi (1-2-3)");
    case "no_point": return gettext("No point");
    case "out_of_bowl": return gettext("Out of the bowl");
    default: return hand.hand;
  }
}

function diceRow(dice, label, small = false) {
  const cls = "dice" + (small ? " small" : "");
  if (!dice) return h("div", { class: cls, role: "img", "aria-label": gettext("Out of the bowl") }, h("span", { class: "oob", text: gettext("Out of the bowl!") }));
  return h("div", { class: cls, role: "img", "aria-label": label || fmt(gettext("Dice %(d)s"), { d: dice.join(", ") }) },
    dice.map((d) => dieSvg(d)));
}

// The bowl: the throws of the seat rolling now (or of the last one to roll), up to three, the last one
// large, and the hand's name announced over the dice.
function renderBowl(view) {
  const t = view.table || {};
  const m = S.motion || {};
  const bowl = h("div", { class: "bowl", role: "group", "aria-label": gettext("The bowl") });
  if (view.phase === "first_dealer" && t.first_dealer_rolls && Object.keys(t.first_dealer_rolls).length) {
    bowl.appendChild(h("p", { class: "bowl-note", text: gettext("Each player rolls one die; the highest deals.") }));
    const ul = h("ul", { class: "first-rolls" });
    for (const [seat, dice] of Object.entries(t.first_dealer_rolls)) {
      ul.appendChild(h("li", {}, h("span", { text: seatName(Number(seat)) }),
        h("div", { class: "dice small" + (m.throw ? " anim-roll" : "") }, dice.map((d) => dieSvg(d)))));
    }
    bowl.appendChild(ul);
    return bowl;
  }
  const order = t.roll_order && t.roll_order.length ? t.roll_order : Object.keys(t.rolls || {}).map(Number);
  const rolled = order.filter((s) => (t.rolls || {})[s] && t.rolls[s].length);
  let seat = view.phase === "rolling" && view.turn !== null && (t.rolls || {})[view.turn] ? view.turn : rolled[rolled.length - 1];
  let throws = seat !== undefined ? t.rolls[seat] : null;
  let hand = seat !== undefined && t.hands ? t.hands[seat] : null;
  if (!throws && t.last_hand) {  // between hands: the last throw of the hand just settled
    const lh = t.last_hand;
    const seats = Object.keys(lh.rolls || {}).map(Number);
    seat = seats.includes(lh.dealer) ? lh.dealer : seats[seats.length - 1];
    throws = seat !== undefined ? lh.rolls[seat] : null;
    hand = seat !== undefined ? (lh.hands || {})[seat] : null;
  }
  if (!throws || !throws.length) {
    bowl.appendChild(h("p", { class: "bowl-note", text: phaseText(view.phase) }));
    return bowl;
  }
  bowl.appendChild(h("p", { class: "bowl-who", text: fmt(gettext("%(name)s rolls"), { name: seatName(seat) }) }));
  const last = throws[throws.length - 1];
  bowl.appendChild(h("div", { class: "throw-now" + (m.throw ? " anim-roll" : "") }, diceRow(last)));
  bowl.appendChild(h("p", { class: "hand-name" + (hand && m.hand ? " anim-pop" : ""), "aria-live": "polite",
    text: hand ? handName(hand) : fmt(gettext("throw %(n)s of 3"), { n: throws.length }) }));
  if (throws.length > 1) {
    bowl.appendChild(h("ol", { class: "throws", "aria-label": gettext("Earlier throws") },
      throws.slice(0, -1).map((d) => h("li", {}, diceRow(d, null, true)))));
  }
  return bowl;
}

function renderChinchirorin(view) {
  const t = view.table || {};
  const box = h("div", { class: "board" });
  const info = [];
  if (t.hand_number) info.push(fmt(gettext("Hand %(n)s"), { n: t.hand_number }));
  if (t.dealer !== null && t.dealer !== undefined) info.push(fmt(gettext("Dealer: %(name)s"), { name: seatName(t.dealer) }));
  if (t.dealer_streak) info.push(fmt(gettext("dealt %(n)s in a row"), { n: t.dealer_streak }));
  info.push(phaseText(view.phase));
  box.appendChild(h("p", { class: "board-info", text: info.join(" · ") }));

  const order = t.roll_order && t.roll_order.length ? t.roll_order : Object.keys(t.rolls || {}).map(Number);
  if (t.rolls && Object.keys(t.rolls).length) {
    const ul = h("ul", { class: "rolls", "aria-label": gettext("Throws this hand") });
    for (const seat of order) {
      const throws = t.rolls[seat];
      if (!throws || !throws.length) continue;
      const last = throws[throws.length - 1];
      const hand = t.hands && t.hands[seat];
      ul.appendChild(h("li", { class: "roll" },
        h("span", { class: "rname", text: seatName(Number(seat)) }),
        diceRow(last, null, true),
        h("span", { class: "rhand", text: hand ? handName(hand) : fmt(gettext("throw %(n)s of 3"), { n: throws.length }) })));
    }
    box.appendChild(ul);
  }
  if (t.last_hand) box.appendChild(renderLastHand(t.last_hand));
  return box;
}

function renderLastHand(lh) {
  const box = h("details", { class: "last-hand", open: true }, h("summary", { text: fmt(gettext("Last hand (%(n)s)"), { n: lh.hand_number }) }));
  const ul = h("ul", {});
  for (const [seat, hand] of Object.entries(lh.hands || {})) {
    const throws = (lh.rolls || {})[seat] || [];
    const last = throws.length ? throws[throws.length - 1] : undefined;
    ul.appendChild(h("li", {}, h("span", { text: seatName(Number(seat)) + (Number(seat) === lh.dealer ? " (" + gettext("dealer") + ")" : "") + ": " }),
      last !== undefined ? diceRow(last) : null, h("span", { text: " " + handName(hand) })));
  }
  box.appendChild(ul);
  const pays = h("ul", { class: "payments" });
  for (const p of lh.payments || []) {
    pays.appendChild(h("li", { text: fmt(ngettext("%(from)s pays %(to)s %(n)s point", "%(from)s pays %(to)s %(n)s points", p.amount), { from: seatName(p.from), to: seatName(p.to), n: p.amount }) }));
  }
  if (!(lh.payments || []).length) pays.appendChild(h("li", { text: gettext("No points moved.") }));
  box.appendChild(pays);
  return box;
}

function phaseText(phase) {
  return { first_dealer: gettext("choosing the first dealer"), step_down: gettext("the dealer may step down"),
           betting: gettext("betting"), rolling: gettext("rolling"), draw: gettext("draw"), discard: gettext("discard"),
           reentry: gettext("re-entry offers"), finished: gettext("finished") }[phase] || phase || "";
}

// Chinchón ---------------------------------------------------------------------------------------------
const SUIT_NAMES = () => ({
  spanish: { O: gettext("Oros"), C: gettext("Copas"), E: gettext("Espadas"), B: gettext("Bastos") },
  french: { O: gettext("Diamonds"), C: gettext("Hearts"), E: gettext("Spades"), B: gettext("Clubs") },
});

function cardName(code) {
  if (code === "JK") return gettext("Joker");
  const { rank, suit } = parseCard(code);
  const names = SUIT_NAMES()[S.french ? "french" : "spanish"];
  let r = rankLabel(rank, S.french);
  if (!S.french) r = { 10: gettext("Sota"), 11: gettext("Caballo"), 12: gettext("Rey") }[rank] || r;
  else r = { 1: gettext("Ace"), 10: gettext("Jack"), 11: gettext("Queen"), 12: gettext("King") }[rank] || r;
  return fmt(gettext("%(rank)s of %(suit)s"), { rank: r, suit: names[suit] });
}

function cardEl(code, attrs = {}) {
  return h("span", { class: "card", role: "img", "aria-label": cardName(code), ...attrs }, cardSvg(code, S.french));
}

function sortedHand(hand) {
  if (!S.sortByRank) return hand;  // the server's order: by suit, then rank, jokers last
  const key = (c) => { const { rank, suit } = parseCard(c); return rank === null ? 99 * 10 : rank * 10 + SUITS.indexOf(suit); };
  return [...hand].sort((a, b) => key(a) - key(b));
}

// The stock (face down, its count) and the discard pile (its top card face up), the buttons to draw.
function renderPiles(view) {
  const t = view.table || {};
  const drawStock = view.legal_actions.find((a) => a.type === "draw" && a.source === "stock");
  const drawDiscard = view.legal_actions.find((a) => a.type === "draw" && a.source === "discard");
  const pile = t.discard_pile || [];
  const top = pile.length ? pile[pile.length - 1] : null;
  const stock = h("button", { type: "button", class: "pile act", id: "draw-stock", "data-action": "draw", "data-value": "stock",
    disabled: !drawStock || busy(), onclick: () => drawStock && act(drawStock),
    "aria-label": fmt(gettext("Draw from the stock (%(n)s cards)"), { n: t.stock_size ?? 0 }) },
    cardBackSvg(), h("span", { class: "pile-count", text: String(t.stock_size ?? 0) }));
  const discard = h("button", { type: "button", id: "draw-discard", "data-action": "draw", "data-value": "discard",
    "data-top": top || "", class: "pile act" + ((S.motion || {}).discard ? " anim-drop" : ""),
    disabled: !drawDiscard || busy(), onclick: () => drawDiscard && act(drawDiscard),
    "aria-label": top ? fmt(gettext("Take %(card)s from the discard pile"), { card: cardName(top) }) : gettext("The discard pile is empty") },
    top ? cardSvg(top, S.french) : h("span", { class: "empty-pile", text: "–" }));
  return h("div", { class: "piles" },
    h("div", { class: "pile-box" }, stock, h("span", { class: "pile-label", text: gettext("Stock") })),
    h("div", { class: "pile-box" }, discard, h("span", { class: "pile-label", text: gettext("Discard pile") })));
}

function renderChinchon(view) {
  const t = view.table || {};
  const box = h("div", { class: "board" });
  const info = [];
  if (t.hand_number) info.push(fmt(gettext("Hand %(n)s"), { n: t.hand_number }));
  info.push(phaseText(view.phase));
  box.appendChild(h("p", { class: "board-info", text: info.join(" · ") }));
  if (t.pot) box.appendChild(renderPot(t.pot, view));

  if (t.hand && t.hand.length) {
    const choosing = view.legal_actions.some((a) => a.type === "discard" || a.type === "close");
    const handBox = h("div", { class: "hand", role: "group", "aria-label": gettext("Your hand") });
    for (const [i, code] of sortedHand(t.hand).entries()) {
      const taken = code === t.taken_from_discard;
      const legal = view.legal_actions.some((a) => (a.type === "discard" || a.type === "close") && a.card === code);
      const label = cardName(code) + (taken ? " " + gettext("(just taken)") : "");
      if (choosing) {
        handBox.appendChild(h("button", { type: "button", id: "card-" + i, class: "card pick" + (S.selected === code ? " selected" : "") + (taken ? " taken" : "") + cardMotion(code),
          "data-card": code, "aria-pressed": S.selected === code ? "true" : "false", "aria-label": label, disabled: !legal,
          onclick: () => { S.selected = S.selected === code ? null : code; renderRoom(); } },
          cardSvg(code, S.french)));
      } else {
        handBox.appendChild(cardEl(code, { "aria-label": label, "data-card": code, class: "card" + (taken ? " taken" : "") + cardMotion(code) }));
      }
    }
    box.appendChild(h("div", { class: "hand-head" },
      h("h3", { text: gettext("Your hand") }),
      h("button", { type: "button", id: "sort-hand", "aria-pressed": S.sortByRank ? "true" : "false",
        onclick: () => { S.sortByRank = !S.sortByRank; store.set("sortByRank", S.sortByRank); renderRoom(); } },
        S.sortByRank ? gettext("Sort: by rank (sets)") : gettext("Sort: by suit (runs)"))));
    box.appendChild(handBox);
  }
  if (t.pickups && t.pickups.length) {
    box.appendChild(h("p", { class: "pickups", text: gettext("Taken from the discard pile this hand: ") +
      t.pickups.map((p) => `${seatName(p.seat)} ${cardName(p.card)}`).join("; ") }));
  }
  if (t.reveal) box.appendChild(renderReveal(t.reveal));
  return box;
}

// A card of the viewer's hand just dealt or drawn slides in.
function cardMotion(code) {
  const m = S.motion || {};
  if (m.deal) return " anim-deal";
  return m.drewCard === code ? " anim-draw" : "";
}

function renderReveal(reveal) {
  const box = h("details", { class: "reveal" + ((S.motion || {}).reveal ? " anim-reveal" : ""), open: true },
    h("summary", { text: fmt(gettext("Hand %(n)s closed by %(name)s"), { n: reveal.hand_number, name: seatName(reveal.closer) }) }));
  const kinds = { normal: pgettext("chinchon hand", "closed"), minus_ten: gettext("menos diez"), chinchon: gettext("chinchón!"), seven_run_wild: gettext("seven-card run with a wild") };
  for (const [seat, r] of Object.entries(reveal.seats || {})) {
    const row = h("div", { class: "reveal-seat" },
      h("h4", { text: `${seatName(Number(seat))}: ${fmt(ngettext("%(n)s point", "%(n)s points", r.points), { n: r.points })}` + (kinds[r.kind] ? ` (${kinds[r.kind]})` : "") }));
    const melds = h("div", { class: "melds" });
    (r.melds || []).forEach((m, i) => melds.appendChild(h("div", { class: "meld", role: "group",
      "aria-label": fmt(gettext("Meld %(n)s"), { n: i + 1 }) }, m.map((c) => cardEl(c, { class: "card mini" })))));
    if ((r.loose || []).length) {
      melds.appendChild(h("div", { class: "meld loose", role: "group", "aria-label": gettext("Loose cards") },
        h("span", { class: "meld-label", text: gettext("loose") }), r.loose.map((c) => cardEl(c, { class: "card mini" }))));
    }
    row.appendChild(melds);
    if ((r.laid_off || []).length) {
      row.appendChild(h("p", { class: "laid-off", text: gettext("Laid off: ") + r.laid_off.map((l) =>
        fmt(gettext("%(card)s onto %(name)s's meld %(n)s"), { card: cardName(l.card), name: seatName(l.onto.seat), n: l.onto.meld + 1 })).join("; ") }));
    }
    box.appendChild(row);
  }
  return box;
}

// ------------------------------------------------------------------------------------------- chat
async function loadChat() {
  const code = S.code;
  if (!S.chat) S.chat = await attempt(() => api("GET", "/api/chat/catalogue"));
  renderChatQuick();
  const messages = await attempt(() => api("GET", `/api/rooms/${code}/messages`));
  if (messages && S.code === code) for (const m of messages) addChat(m, false);
}

function renderChatQuick() {
  if (!S.chat) return;
  $("#chat-emoji").replaceChildren(...S.chat.emoji.map((e) => h("button", { type: "button", class: "emoji",
    onclick: () => chatSend({ emoji: e }), "aria-label": fmt(gettext("Send %(emoji)s"), { emoji: e }) }, e)));
  $("#chat-phrases").replaceChildren(...S.chat.phrases.map((p) => h("button", { type: "button", class: "phrase",
    "data-phrase": p.id, onclick: () => chatSend({ phrase: p.id }) }, p.text)));
}

function chatSend(body) {
  if (!send({ type: "chat", ...body })) attempt(() => api("POST", `/api/rooms/${S.code}/messages`, body));
}

function addChat(m, live) {
  if (S.seenChat.has(m.id)) return;
  S.seenChat.add(m.id);
  let text = m.text || m.emoji || "";
  if (m.phrase) { const p = S.chat && S.chat.phrases.find((x) => x.id === m.phrase); text = p ? p.text : m.phrase; }
  const time = new Date(m.created_at);
  const li = h("li", { class: "chat-msg" + (m.emoji ? " emoji-msg" : ""), "data-id": m.id },
    h("time", { datetime: m.created_at, text: time.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) }),
    h("strong", { text: m.display_name + ": " }), h("span", { class: "chat-text", text }),
    reportMessageButton(m));
  const log = $("#chat-log");
  log.appendChild(li);
  while (log.children.length > 100) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
  if (live) sounds.chat();
}

// ------------------------------------------------------------------------------- reports and notices
// A report control for a player, a chat message or a finished game (POST /api/reports); what moderators
// told the player (GET /api/me/notices, kept until marked seen); an appeal against a sanction
// (POST /api/appeals), offered with the sanction's answer. docs/moderation.md.
const REPORT_REASONS = () => [
  ["cheating", gettext("Cheating")], ["collusion", gettext("Collusion or rating manipulation")],
  ["harassment", gettext("Harassment or insults")], ["hate", gettext("Hate speech")],
  ["spam", gettext("Spam or advertising")], ["inappropriate_name", gettext("Inappropriate name")],
  ["stalling", gettext("Stalling or abandoning games")], ["other", gettext("Other")],
];

function reportButton(kind, targetId, label) {
  return h("button", { type: "button", class: "report-btn", "data-report": `${kind}:${targetId}`,
                       "aria-label": label, title: label, onclick: () => openReport(kind, targetId, label) }, "⚑");
}

// Another human player of the open room (its seat's user), or nothing.
function reportPlayerButton(seat, name) {
  const s = S.room && S.room.seats.find((x) => x.index === seat);
  if (!s || !s.user || !S.me || s.user.id === S.me.id) return null;
  return reportButton("user", s.user.id, fmt(gettext("Report %(name)s"), { name }));
}

// A chat message someone else wrote (not from my seat), or nothing.
function reportMessageButton(m) {
  const mine = S.room && S.me && S.room.seats.find((x) => x.user && x.user.id === S.me.id);
  if (!S.me || (mine && m.seat === mine.index)) return null;
  return reportButton("chat_message", m.id, gettext("Report this message"));
}

function openReport(kind, targetId, label) {
  const old = $("#report-dialog");
  if (old) old.remove();
  const reason = h("select", { id: "report-reason", name: "reason", required: true },
    ...REPORT_REASONS().map(([value, text]) => h("option", { value }, text)));
  const note = h("textarea", { id: "report-note", name: "note", maxlength: "500", rows: "3" });
  const dialog = h("dialog", { id: "report-dialog", class: "card-form", "aria-labelledby": "report-title" });
  const form = h("form", { method: "dialog" },
    h("h3", { id: "report-title", text: label }),
    h("label", { for: "report-reason", text: gettext("Why?") }), reason,
    h("label", { for: "report-note", text: gettext("Anything the moderators should know (optional)") }), note,
    h("div", { class: "row" },
      h("button", { type: "submit", id: "report-send", text: gettext("Send report") }),
      h("button", { type: "button", onclick: () => dialog.close(), text: gettext("Cancel") })));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    attempt(async () => {
      await api("POST", "/api/reports", { kind, target_id: targetId, reason: reason.value, note: note.value.trim() });
      dialog.close();
      toast(gettext("Report sent. The moderators will look at it; you will be told when they act on it."));
    });
  });
  dialog.appendChild(form);
  dialog.addEventListener("close", () => dialog.remove());
  document.body.appendChild(dialog);
  dialog.showModal();
  reason.focus();
}

async function loadNotices() {
  if (!S.token) return;
  const answer = await attempt(() => api("GET", "/api/me/notices"));
  if (!answer || !answer.notices.length) return;
  showNotices(answer.notices);
}

function showNotices(notices) {
  let box = $("#notices");
  if (!box) {
    box = h("section", { id: "notices", class: "card-form notices", role: "status",
                         "aria-labelledby": "notices-title" },
      h("h2", { id: "notices-title", text: gettext("Messages from the moderators") }),
      h("ul", { class: "plain-list" }),
      h("button", { type: "button", id: "notices-ok", text: gettext("Understood") }));
    $("#main").prepend(box);
  }
  const list = $("ul", box);
  for (const n of notices) list.appendChild(h("li", { "data-notice": n.id, text: n.text }));
  $("#notices-ok", box).onclick = () => attempt(async () => {
    const upTo = Math.max(...[...list.children].map((li) => Number(li.dataset.notice)));
    await api("POST", "/api/me/notices/seen", { up_to: upTo });
    box.remove();
  });
}

function offerAppeal(body) {
  if (!S.token || !body || !body.sanction_id || $("#appeal-form")) return;  // appeals go with the token
  const text = h("textarea", { id: "appeal-text", maxlength: "1000", rows: "3", required: true });
  const form = h("form", { id: "appeal-form", class: "card-form", "aria-labelledby": "appeal-title" },
    h("h2", { id: "appeal-title", text: gettext("Appeal this sanction") }),
    h("p", { text: body.detail || "" }),
    h("label", { for: "appeal-text", text: gettext("Why should it be lifted? (one appeal per sanction)") }), text,
    h("div", { class: "row" }, h("button", { type: "submit", id: "appeal-send", text: gettext("Send appeal") })));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    attempt(async () => {
      await api("POST", "/api/appeals", { sanction_id: body.sanction_id, text: text.value.trim() });
      form.replaceChildren(h("p", { id: "appeal-sent", text: gettext("Your appeal was sent. A moderator will answer it.") }));
    });
  });
  $("#main").prepend(form);
}

// ------------------------------------------------------------------------------------------- people
async function loadStats() {
  const [stats, me, awards] = await Promise.all([
    attempt(() => api("GET", `/api/users/${S.me.id}/stats`)),
    attempt(() => api("GET", "/api/me")),
    attempt(() => api("GET", `/api/users/${S.me.id}/achievements/progress`)),
  ]);
  const body = $("#stats-body");
  body.replaceChildren();
  if (stats) {
    const span = Math.max(1, stats.next_level_xp - stats.level_xp);
    body.appendChild(h("p", {}, fmt(gettext("Level %(level)s · %(xp)s XP"), { level: stats.level, xp: stats.xp }), " ",
      h("progress", { max: span, value: stats.xp - stats.level_xp, "aria-label": gettext("Progress to the next level") })));
    const table = h("table", { class: "grid" }, h("caption", { text: gettext("Games") }),
      h("thead", {}, h("tr", {}, ["", gettext("Games"), gettext("Wins"), gettext("Draws"), gettext("Losses"), gettext("Rating"), gettext("Rated games")]
        .map((c, i) => h("th", { scope: i ? "col" : null, text: c })))));
    const tb = h("tbody");
    tb.appendChild(h("tr", {}, h("th", { scope: "row", text: gettext("All") }), [stats.games, stats.wins, stats.draws, stats.losses, "", ""].map((v) => h("td", { text: String(v) }))));
    for (const [g, c] of Object.entries(stats.per_game || {})) {
      tb.appendChild(h("tr", {}, h("th", { scope: "row", text: gameName(g) }),
        [c.games, c.wins, c.draws, c.losses, c.rating, c.rated_games].map((v) => h("td", { text: String(v) }))));
    }
    table.appendChild(tb);
    body.appendChild(h("div", { class: "scroll-x" }, table));
    const cr = (stats.per_game || {}).chinchirorin;
    const cn = (stats.per_game || {}).chinchon;
    const facts = h("ul", { class: "facts" });
    if (cr) facts.appendChild(h("li", { text: fmt(gettext("Chinchirorin: %(p)s pinzoro, %(a)s arashi, %(s)s shigoro, %(h)s hifumi"), { p: cr.pinzoro, a: cr.arashi, s: cr.shigoro, h: cr.hifumi }) }));
    if (cn) facts.appendChild(h("li", { text: fmt(gettext("Chinchón: %(m)s menos diez, %(c)s chinchón, %(d)s cards discarded"), { m: cn.minus_ten, c: cn.chinchon, d: cn.cards_discarded }) }));
    body.appendChild(facts);
  }
  if (me && me.ratings) {
    body.appendChild(h("p", { text: Object.entries(me.ratings).map(([g, r]) => fmt(gettext("%(game)s rating %(rating)s (%(n)s rated games)"),
      { game: gameName(g), rating: r.rating, n: r.games })).join(" · ") }));
  }
  const ach = $("#achievements-body");
  ach.replaceChildren();
  if (!awards || !awards.length) { ach.appendChild(h("p", { text: gettext("No achievements yet: play a game!") })); return; }
  ach.appendChild(h("ul", { class: "achievements" }, awards.map((a) => h("li", { class: a.earned ? "got" : "locked" },
    h("strong", { text: a.name }), " — ", a.description, " ",
    h("progress", { max: a.target, value: Math.min(a.progress, a.target),
                    "aria-label": fmt(gettext("%(name)s: %(n)s of %(target)s"), { name: a.name, n: a.progress, target: a.target }) }),
    h("span", { class: "tags", text: a.earned
      ? fmt(gettext("earned %(date)s · %(xp)s XP"), { date: new Date(a.awarded_at).toLocaleDateString(), xp: a.xp })
      : fmt(gettext("%(n)s of %(target)s · %(xp)s XP"), { n: a.progress, target: a.target, xp: a.xp }) })))));
}

async function loadLeaderboard() {
  const game = $("#lb-game").value;
  const scope = $("#lb-scope").value;
  const page = await attempt(() => api("GET", `/api/leaderboard?game=${game}&scope=${scope}`));
  const body = $("#lb-body");
  body.replaceChildren();
  if (!page) return;
  loadXpLeaderboard(scope);
  const rows = page.results || page;
  if (!rows.length) { body.appendChild(h("p", { text: gettext("Nobody is rated yet.") })); return; }
  body.appendChild(h("div", { class: "scroll-x" }, h("table", { class: "grid" },
    h("thead", {}, h("tr", {}, [gettext("Rank"), gettext("Player"), gettext("Rating"), gettext("Games"), ""].map((c) => h("th", { scope: "col", text: c })))),
    h("tbody", {}, rows.map((r) => h("tr", { class: r.player.id === S.me.id ? "me" : "" },
      h("td", { text: String(r.rank) }), h("td", { text: r.player.display_name }), h("td", { text: String(r.rating) }),
      h("td", { text: String(r.games) }),
      h("td", {}, r.player.id !== S.me.id ? friendButton({ ...r.player, is_guest: false }) : null)))))));
}

async function addFriend(userId) {
  const answer = await attempt(() => api("POST", "/api/friends", { user_id: userId }));
  if (answer) toast(answer.status === "friends" ? fmt(gettext("You and %(name)s are friends."), { name: answer.player.display_name })
                                                : fmt(gettext("Friend request sent to %(name)s."), { name: answer.player.display_name }));
  if (!$("#screen-friends").hidden) loadFriends();
}

async function useFriendCode(code) {
  const answer = await attempt(() => api("POST", "/api/friends", { code }));
  history.replaceState({}, "", "/#friends");
  show("friends");
  if (answer) toast(fmt(gettext("You and %(name)s are friends."), { name: answer.player.display_name }));
}

async function loadFriends() {
  $("#my-id").textContent = S.me.id;
  const link = await attempt(() => api("GET", "/api/me/friend-code"));
  if (link) { $("#friend-link").textContent = link.url; $("#friend-link").href = link.url; }
  const data = await attempt(() => api("GET", "/api/friends"));
  const body = $("#friends-body");
  body.replaceChildren();
  if (!data) return;
  const section = (title, items, buttons) => h("section", {}, h("h3", { text: title }),
    items.length ? h("ul", { class: "people" }, items.map((f) => h("li", {}, onlineDot(f), h("span", { text: `${f.player.display_name} (#${f.player.id})` }), buttons(f))))
                 : h("p", { text: gettext("None.") }));
  const remove = (f, label) => h("button", { type: "button", class: "small", onclick: () => attempt(async () => {
    await api("DELETE", "/api/friends", { user_id: f.player.id }); loadFriends(); }) }, label);
  body.appendChild(section(gettext("Requests for you"), data.incoming, (f) => [
    h("button", { type: "button", class: "small primary", onclick: () => addFriend(f.player.id) }, gettext("Accept")),
    remove(f, gettext("Decline"))]));
  body.appendChild(section(gettext("Your friends"), data.friends, (f) => [remove(f, gettext("Remove"))]));
  body.appendChild(section(gettext("Requests you sent"), data.outgoing, (f) => [remove(f, gettext("Cancel"))]));
}

async function loadQueue() {
  clearInterval(S.queueTimer);
  const render = (q) => {
    if (!q) return;
    const text = {
      none: gettext("You are not in the queue."),
      waiting: fmt(gettext("Waiting for friends for %(game)s (%(n)s players)…"), { game: gameName(q.game), n: q.seats }),
      matched: gettext("Matched! Opening the room…"),
      expired: gettext("Your place in the queue expired."),
    }[q.status];
    $("#queue-status").textContent = text;
    $("#queue-leave").hidden = q.status !== "waiting";
    if (q.status === "matched" && q.room) { clearInterval(S.queueTimer); enterRoom(q.room); }
  };
  render(await attempt(() => api("GET", "/api/queue")));
  S.queueTimer = setInterval(async () => {
    if ($("#screen-queue").hidden) { clearInterval(S.queueTimer); return; }
    render(await api("GET", "/api/queue", undefined, 0).catch(() => null));
  }, 3000);
}

// ------------------------------------------------------------------------------------------- tournaments
// The tournaments screen: the caller's tournaments and a creation form, or one tournament (``T.code``)
// with its standings and tables kept live by its socket /ws/tournaments/<code>/ (docs/tournaments.md).
const T = { code: null, data: null, ws: null, retry: 0, ping: null };
const T_RULE = { chinchon: "preset", chinchirorin: "style" };  // the one rule a tournament's creator picks

// That rule's choices as [value, name in the player's language], from the games' catalogue.
function tournamentRuleChoices(game) {
  const g = catalogueGame(game);
  if (!g) return [];
  if (T_RULE[game] === "preset") return g.presets.map((p) => [p.id, p.name]);
  const st = g.settings.find((x) => x.name === T_RULE[game]);
  return st ? st.choices.map((c) => [c.value, c.label]) : [];
}

function tournamentStatusText(t) {
  return {
    open: fmt(gettext("Starts %(when)s"), { when: new Date(t.starts_at).toLocaleString() }),
    running: fmt(gettext("Round %(round)s of %(rounds)s"), { round: t.round, rounds: t.rounds }),
    finished: gettext("Finished"),
    cancelled: gettext("Cancelled"),
  }[t.status] || t.status;
}

function openTournament(code) {
  T.code = code.toUpperCase();
  if (location.pathname !== "/tournament/" + T.code) history.pushState({}, "", "/tournament/" + T.code);
  show("tournaments");
}

async function loadTournaments() {
  const body = $("#tournaments-body");
  await loadCatalogue();  // the rules' names
  if (T.code) {
    body.replaceChildren(h("p", { text: gettext("Loading…") }));
    const t = await attempt(() => api("GET", `/api/tournaments/${T.code}`));
    if (!t) { T.code = null; history.pushState({}, "", "/#tournaments"); loadTournaments(); return; }
    T.data = t;
    renderTournament();
    tournamentConnect();
    return;
  }
  tournamentClose();
  if (location.pathname !== "/" || location.hash !== "#tournaments") history.pushState({}, "", "/#tournaments");
  const list = await attempt(() => api("GET", "/api/tournaments"));
  body.replaceChildren();
  if (!S.me.is_guest) body.appendChild(tournamentCreateForm());
  const join = h("form", { class: "inline-form", id: "tournament-join-form", onsubmit: (e) => {
    e.preventDefault(); const code = $("#tournament-code").value.trim(); if (code) openTournament(code);
  } }, h("label", { for: "tournament-code", text: gettext("Tournament code") }),
  h("input", { id: "tournament-code", maxlength: "6", autocapitalize: "characters", required: true }),
  h("button", { type: "submit", text: gettext("Open") }));
  body.appendChild(join);
  const rows = (list && list.tournaments) || [];
  body.appendChild(h("h3", { text: gettext("Your tournaments and your friends'") }));
  if (!rows.length) { body.appendChild(h("p", { text: gettext("No tournament yet.") })); return; }
  body.appendChild(h("ul", { class: "plain", id: "tournament-list" }, rows.map((t) => h("li", {},
    h("button", { type: "button", onclick: () => openTournament(t.code) }, t.name || t.code),
    " ", `${gameName(t.game)} · ${tournamentStatusText(t)} · `,
    fmt(ngettext("%(n)s player", "%(n)s players", t.players.length), { n: t.players.length }), ` · ${t.organiser.display_name}`))));
}

function tournamentCreateForm() {
  const start = new Date(Date.now() + 15 * 60000);
  start.setSeconds(0, 0);
  const local = new Date(start.getTime() - start.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
  const ruleSelect = h("select", { id: "t-rule" });
  const fillRules = () => {
    ruleSelect.replaceChildren(h("option", { value: "", text: gettext("Default") }),
      ...tournamentRuleChoices($("#t-game").value).map(([value, name]) => h("option", { value, text: name })));
    $("#t-seats").max = $("#t-game").value === "chinchon" ? "4" : "8";
  };
  const form = h("form", { class: "card-form", id: "tournament-create", onsubmit: createTournament },
    h("h3", { text: gettext("Organise a tournament") }),
    h("label", { for: "t-name", text: gettext("Name") }), h("input", { id: "t-name", maxlength: "60" }),
    h("label", { for: "t-game", text: gettext("Game") }),
    h("select", { id: "t-game", onchange: fillRules }, h("option", { value: "chinchon", text: "Chinchón" }), h("option", { value: "chinchirorin", text: "Chinchirorin" })),
    h("label", { for: "t-rule", text: gettext("Rules") }), ruleSelect,
    h("label", { for: "t-format", text: gettext("Format") }),
    h("select", { id: "t-format", onchange: () => { const rr = $("#t-format").value === "round_robin"; $("#t-rounds").disabled = rr; if (rr) $("#t-seats").value = "2"; $("#t-seats").disabled = rr; } },
      h("option", { value: "swiss", text: gettext("Swiss (up to 64)") }), h("option", { value: "round_robin", text: gettext("Round robin (up to 8)") })),
    h("label", { for: "t-rounds", text: gettext("Rounds") }), h("input", { id: "t-rounds", type: "number", min: "1", max: "12", value: "4" }),
    h("label", { for: "t-seats", text: gettext("Players per table") }), h("input", { id: "t-seats", type: "number", min: "2", max: "4", value: "2" }),
    h("label", { for: "t-turn", text: gettext("Turn time") }),
    h("select", { id: "t-turn" }, h("option", { value: "60", text: gettext("60 seconds") }), h("option", { value: "30", text: gettext("30 seconds") })),
    h("label", { for: "t-start", text: gettext("Starts at") }), h("input", { id: "t-start", type: "datetime-local", value: local, required: true }),
    h("label", { class: "check" }, h("input", { id: "t-rated", type: "checkbox" }), " ", gettext("Rated")),
    h("button", { type: "submit", class: "primary", text: gettext("Create the tournament") }));
  setTimeout(fillRules);
  return form;
}

async function createTournament(e) {
  e.preventDefault();
  const game = $("#t-game").value;
  const format = $("#t-format").value;
  const body = { name: $("#t-name").value, game, format, seats: Number($("#t-seats").value),
                 turn_seconds: Number($("#t-turn").value), rated: $("#t-rated").checked,
                 starts_at: new Date($("#t-start").value).toISOString() };
  if (format === "swiss") body.rounds = Number($("#t-rounds").value);
  if ($("#t-rule").value) body[T_RULE[game]] = $("#t-rule").value;
  const t = await attempt(() => api("POST", "/api/tournaments", body));
  if (t) openTournament(t.code);
}

function tournamentClose() {
  clearInterval(T.ping);
  if (T.ws) { T.ws.onclose = null; T.ws.close(); T.ws = null; }
}

function tournamentConnect() {
  tournamentClose();
  const code = T.code;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/tournaments/${code}/?token=${encodeURIComponent(S.token)}`);
  T.ws = ws;
  ws.onopen = () => { T.retry = 0; T.ping = setInterval(() => { if (ws.readyState === WebSocket.OPEN) ws.send('{"type":"ping"}'); }, 20000); };
  ws.onmessage = (ev) => {
    let msg; try { msg = JSON.parse(ev.data); } catch { return; }
    if (msg.type !== "tournament" || T.code !== code) return;
    if (T.data && T.data.code === code && msg.tournament.version < T.data.version) return;
    T.data = { ...msg.tournament, invite_url: (T.data && T.data.invite_url) || msg.tournament.invite_url };
    renderTournament();
  };
  ws.onclose = (ev) => {
    clearInterval(T.ping);
    if (T.ws !== ws || T.code !== code) return;
    T.ws = null;
    if (ev.code === 4401) { signedOut(); return; }
    if (ev.code === 4409 || ev.code === 4410) { toast(gettext("Your account cannot play now.")); signedOut(); return; }
    if (ev.code === 4404) return;
    setTimeout(() => { if (T.code === code && !T.ws && !$("#screen-tournaments").hidden) tournamentConnect(); }, Math.min(10000, 500 * 2 ** T.retry++));
  };
}

function myTournamentTable(t) {
  return t.tables.find((tb) => tb.round === t.round && tb.status === "playing" && tb.seats.some((s) => s.player.id === S.me.id));
}

async function tournamentCall(method, path) {
  const t = await attempt(() => api(method, `/api/tournaments/${T.code}${path}`));
  if (t && (!T.data || t.version >= T.data.version)) { T.data = { ...t }; renderTournament(); }
}

function tournamentShare(t) {
  const url = t.invite_url;
  return h("div", { class: "share" },
    h("p", {}, gettext("Tournament code"), " ", h("strong", { class: "code", id: "tournament-code-shown", text: t.code })),
    h("label", { for: "tournament-url", text: gettext("Invitation link") }),
    h("input", { id: "tournament-url", readonly: true, value: url, onfocus: (e) => e.target.select() }),
    h("div", { class: "actions" }, h("button", { type: "button", onclick: async () => {
      try { await navigator.clipboard.writeText(url); toast(gettext("Link copied.")); }
      catch { $("#tournament-url").select(); toast(gettext("Select the link and copy it.")); }
    } }, gettext("Copy the link"))));
}

function renderTournament() {
  const t = T.data;
  const body = $("#tournaments-body");
  if (!t) return;
  const entered = t.players.find((p) => p.id === S.me.id);
  const organiser = t.organiser.id === S.me.id;
  const mine = t.status === "running" ? myTournamentTable(t) : null;
  const actions = h("div", { class: "actions" });
  if (mine) actions.appendChild(h("button", { type: "button", class: "primary", id: "tournament-my-table", onclick: () => enterRoom(mine.room) }, gettext("Go to your table")));
  if (!entered && t.status === "open") actions.appendChild(h("button", { type: "button", class: "primary", id: "tournament-join", onclick: () => tournamentCall("POST", "/join") }, gettext("Join the tournament")));
  if (entered && !entered.withdrawn && (t.status === "open" || t.status === "running")) {
    actions.appendChild(h("button", { type: "button", onclick: () => tournamentCall("POST", "/leave") }, t.status === "open" ? gettext("Leave") : gettext("Withdraw")));
  }
  if (organiser && t.status === "open") actions.appendChild(h("button", { type: "button", class: "danger", onclick: () => tournamentCall("POST", "/cancel") }, gettext("Cancel the tournament")));
  actions.appendChild(h("button", { type: "button", onclick: () => { T.code = null; tournamentClose(); loadTournaments(); } }, gettext("All tournaments")));
  const rule = t.rules[T_RULE[t.game]];
  const rules = rule ? settingText(t.game, T_RULE[t.game], rule) : "";
  const head = h("div", { class: "lobby" },
    h("h3", { id: "tournament-name", text: t.name || fmt(gettext("Tournament %(code)s"), { code: t.code }) }),
    h("p", { id: "tournament-state" }, `${gameName(t.game)}${rules ? " (" + rules + ")" : ""} · `,
      t.format === "swiss" ? gettext("Swiss") : gettext("Round robin"), " · ",
      fmt(gettext("%(n)s per table"), { n: t.seats }), t.rated ? " · " + gettext("rated") : "", " · ", h("strong", { text: tournamentStatusText(t) })),
    t.status === "open" ? tournamentShare(t) : null, actions);
  const parts = [head];
  if (t.status === "open") {
    parts.push(h("h3", { text: fmt(gettext("Players (%(n)s of %(max)s)"), { n: t.players.length, max: t.max_players }) }),
      h("ul", { class: "plain", id: "tournament-players" }, t.players.map((p) => h("li", {}, `${p.seed}. ${p.display_name} `,
        organiser && p.id !== S.me.id ? h("button", { type: "button", class: "danger", onclick: () => tournamentCall("DELETE", `/players/${p.id}`) }, gettext("Remove")) : null))));
  } else {
    parts.push(h("div", { class: "scroll-x" }, h("table", { class: "grid", id: "tournament-standings" },
      h("caption", { text: gettext("Standings") }),
      h("thead", {}, h("tr", {}, [gettext("Rank"), gettext("Player"), gettext("Points"), t.format === "swiss" ? gettext("Buchholz") : gettext("Head-to-head"), gettext("Wins"), gettext("Games")].map((c) => h("th", { scope: "col", text: c })))),
      h("tbody", {}, t.standings.map((r) => h("tr", { class: r.player.id === S.me.id ? "me" : "" },
        h("td", { text: String(r.rank) }), h("td", { text: r.player.display_name + (r.withdrawn ? " " + gettext("(withdrew)") : "") }),
        h("td", { text: String(r.score) }), h("td", { text: String(r.tiebreak) }), h("td", { text: String(r.wins) }), h("td", { text: String(r.games) })))))));
    for (let r = t.round; r >= 1; r--) {
      const tables = t.tables.filter((tb) => tb.round === r);
      parts.push(h("details", { class: "settings", open: r === t.round }, h("summary", { text: fmt(gettext("Round %(n)s"), { n: r }) }),
        h("ul", { class: "plain" }, tables.map((tb) => h("li", {},
          tb.status === "bye" ? fmt(gettext("%(name)s: bye"), { name: tb.seats[0].player.display_name })
            : tb.seats.map((s) => s.player.display_name + (s.points === null ? "" : ` (${s.points})`)).join(" · ") + (tb.status === "playing" ? " — " + gettext("playing") : ""))))));
    }
  }
  body.replaceChildren(...parts);
}

// ------------------------------------------------------------------------------------------- replay
// A finished game stepped through from its log (GET /api/games/{id}, then /log page by page): one step per
// seq, forward and back, each showing only what the log shows the caller (a seat its own cards; the others'
// where the API shows them, at a reveal). Reached from the finished table and from "Your rooms"; its link
// (/replay/<id>) opens it for whoever may read that game.
const R = { id: null, view: null, steps: [], at: 0 };

async function openReplay(id) {
  show("replay");
  if (location.pathname !== `/replay/${id}`) history.pushState({}, "", `/replay/${id}`);
  const body = $("#replay-body");
  body.replaceChildren(h("p", { text: gettext("Loading the replay…") }));
  R.view = null;
  const view = await attempt(() => api("GET", `/api/games/${id}`));
  if (!view) { body.replaceChildren(h("p", { text: gettext("This replay is not available to you.") })); return; }
  if (view.status === "playing") {
    body.replaceChildren(h("p", { text: gettext("This game is still being played: its replay opens when it ends.") }));
    return;
  }
  const events = [];
  let after = -1;
  for (;;) {
    const page = await attempt(() => api("GET", `/api/games/${id}/log?after=${after}`));
    if (!page) return;
    events.push(...page.events);
    if (!page.more) break;
    after = page.next_after;
  }
  const steps = [];
  for (const ev of events) {
    if (!eventShown(ev)) continue;
    const last = steps[steps.length - 1];
    if (last && last.seq === ev.seq) last.events.push(ev); else steps.push({ seq: ev.seq, events: [ev] });
  }
  Object.assign(R, { id, view, steps, at: 0 });
  renderReplay();
}

function replayGo(at) {
  R.at = Math.max(0, Math.min(R.steps.length - 1, at));
  renderReplay();
}

function renderReplay() {
  const view = R.view;
  const body = $("#replay-body");
  if (!view || $("#screen-replay").hidden) return;
  const focused = document.activeElement && document.activeElement.id;
  const total = R.steps.length;
  const step = R.steps[R.at];
  const url = `${location.origin}/replay/${view.id}`;
  const box = h("div", { class: "replay", "data-game": view.id });
  box.appendChild(h("p", { class: "replay-what", text: fmt(gettext("%(game)s · game %(id)s"), { game: gameName(view.game), id: view.id }) }));
  const controls = h("div", { class: "actions replay-controls", role: "group", "aria-label": gettext("Replay controls") },
    h("button", { type: "button", id: "replay-first", disabled: R.at === 0, onclick: () => replayGo(0) }, gettext("Start")),
    h("button", { type: "button", id: "replay-back", disabled: R.at === 0, onclick: () => replayGo(R.at - 1) }, gettext("Back")),
    h("button", { type: "button", id: "replay-forward", class: "primary", disabled: R.at >= total - 1, onclick: () => replayGo(R.at + 1) }, gettext("Forward")),
    h("button", { type: "button", id: "replay-last", disabled: R.at >= total - 1, onclick: () => replayGo(total - 1) }, gettext("End")));
  box.appendChild(controls);
  box.appendChild(h("label", { for: "replay-step", id: "replay-counter",
    text: fmt(gettext("Step %(n)s of %(total)s"), { n: total ? R.at + 1 : 0, total }) }));
  box.appendChild(h("input", { type: "range", id: "replay-step", min: 0, max: Math.max(0, total - 1), value: R.at,
    oninput: (e) => replayGo(Number(e.target.value)) }));
  if (step) {
    const ol = h("ol", { class: "replay-events plain-list", "aria-live": "polite" });
    for (const ev of step.events) ol.appendChild(eventItem(ev, view));
    box.appendChild(h("section", { class: "table replay-step " + view.game, "aria-labelledby": "replay-counter" }, ol));
  }
  if (R.at >= total - 1) box.appendChild(renderResult(view));
  box.appendChild(h("div", { class: "field" }, h("label", { for: "replay-url", text: gettext("Replay link") }),
    h("input", { id: "replay-url", readonly: true, value: url, onfocus: (e) => e.target.select() }),
    h("button", { type: "button", id: "copy-replay", onclick: async () => {
      try { await navigator.clipboard.writeText(url); toast(gettext("Link copied.")); }
      catch { $("#replay-url").select(); toast(gettext("Select the link and copy it.")); }
    } }, gettext("Copy the link"))));
  body.replaceChildren(box);
  if (focused) { const el = document.getElementById(focused); if (el && !el.disabled) el.focus({ preventScroll: true }); }
}

// The log's events a replay shows (the rest are bookkeeping: whose turn, offers the next event answers).
function eventShown(ev) { return !["turn", "step_down_offered", "betting_closed"].includes(ev.type); }

function eventItem(ev, view) {
  const who = ev.seat !== undefined && ev.seat !== null ? seatName(ev.seat) : "";
  const li = h("li", { class: "replay-event", "data-type": ev.type, "data-seat": ev.seat ?? "" });
  const line = (text) => li.appendChild(h("p", { text }));
  const cards = (list) => li.appendChild(h("div", { class: "melds" }, list.map((c) => cardEl(c, { class: "card mini" }))));
  switch (ev.type) {
    case "stake": line(fmt(gettext("Each player stakes %(n)s."), { n: ev.amount })); break;
    case "first_dealer_roll": line(fmt(gettext("%(name)s rolls for the deal."), { name: who })); li.appendChild(diceRow([ev.die], null, true)); break;
    case "first_dealer_tie": line(gettext("A tie: the tied players roll again.")); break;
    case "dealer": line(fmt(gettext("%(name)s is the dealer."), { name: who })); break;
    case "step_down": line(fmt(ev.down ? gettext("%(name)s steps down as dealer.") : gettext("%(name)s keeps dealing."), { name: who })); break;
    case "bet": line(fmt(gettext("%(name)s bets %(n)s."), { name: who, n: ev.amount })); break;
    case "throw": line(fmt(gettext("%(name)s, throw %(n)s of 3"), { name: who, n: ev.throw })); li.appendChild(diceRow(ev.dice)); break;
    case "hand":
      if (view.game === "chinchirorin") line(`${who}: ${handName(ev)}`);
      else { line(fmt(gettext("%(name)s's cards are dealt."), { name: who })); cards(ev.cards || []); }
      break;
    case "opening": line(gettext("The dealer's throw settles the hand at once.")); break;
    case "payment": line(fmt(ngettext("%(from)s pays %(to)s %(n)s point", "%(from)s pays %(to)s %(n)s points", ev.amount), { from: seatName(ev.from), to: seatName(ev.to), n: ev.amount })); break;
    case "hand_settled": line(fmt(gettext("Hand %(n)s is settled."), { n: ev.hand_number })); break;
    case "mano_draw":
      ev.rounds.forEach((round, i) => {
        line(i === 0 ? gettext("Each player draws a card for the mano.")
                     : gettext("A tie for the highest card: the tied players draw again."));
        li.appendChild(h("div", { class: "melds mano-draw" }, Object.entries(round).map(([seat, card]) =>
          h("span", { class: "mano-draw-card", "data-seat": seat }, h("span", { text: seatName(Number(seat)) }),
            cardEl(card, { class: "card mini" })))));
      });
      line(fmt(gettext("%(name)s draws the highest card and is mano."), { name: seatName(ev.mano) }));
      break;
    case "mano": line(fmt(gettext("Hand %(n)s: %(name)s is mano."), { n: ev.hand_number, name: who })); break;
    case "draw":
      if (ev.source === "stock") line(fmt(gettext("%(name)s draws from the stock."), { name: who }));
      else { line(fmt(gettext("%(name)s takes %(card)s from the discard pile."), { name: who, card: cardName(ev.card) })); cards([ev.card]); }
      break;
    case "drawn": line(fmt(gettext("%(name)s draws %(card)s."), { name: who, card: cardName(ev.card) })); cards([ev.card]); break;
    case "discard": line(fmt(gettext("%(name)s discards %(card)s."), { name: who, card: cardName(ev.card) })); cards([ev.card]); break;
    case "restock": line(gettext("The discard pile is shuffled into the stock.")); break;
    case "close": line(fmt(gettext("%(name)s closes the hand."), { name: who })); break;
    case "reveal": li.appendChild(renderReveal(ev)); break;
    case "out": line(fmt(gettext("%(name)s is out with %(n)s."), { name: who, n: ev.score })); break;
    case "reentry_offer": line(gettext("Re-entry is offered.")); break;
    case "reenter": line(fmt(ev.accept ? gettext("%(name)s re-enters.") : gettext("%(name)s stays out."), { name: who })); break;
    case "reentry_paid": line(fmt(gettext("%(name)s pays %(n)s to re-enter."), { name: who, n: ev.amount })); break;
    case "resign": case "resigned": line(fmt(gettext("%(name)s resigns."), { name: who })); break;
    case "pot_won": line(gettext("The pot is paid out.")); break;
    case "game_over": case "game_end": line(gettext("The game is over.")); break;
    default: line(gettext("Another move."));
  }
  return li;
}

// ------------------------------------------------------------------------------------------- watching
// A room that lets people watch has a watch link (/watch/<code>): it opens the room's socket without a
// seat, so the server sends the spectator's view (no hand, no stock, no moves) and the page offers none.
function watchUrl(room) { return `${location.origin}/watch/${room.code}`; }

async function watchRoom(code) {
  code = code.trim().toUpperCase();
  const room = await attempt(() => api("GET", `/api/rooms/${encodeURIComponent(code)}`));
  if (!room) { show("home"); return; }
  S.watching = true;
  openRoom(room);
}

function renderWatchLink(room) {
  if (!room.spectators_allowed) return null;
  return h("p", { class: "watch-link" }, gettext("Watch link (spectators see no hand):"), " ",
    h("a", { href: watchUrl(room), id: "watch-link", text: watchUrl(room) }));
}

function renderWatching(room) {
  return h("section", { class: "lobby", "aria-label": gettext("Lobby") },
    h("p", { class: "watching", text: gettext("You are watching this table.") }),
    h("div", { class: "actions" }, h("button", { type: "button", id: "stop-watching", onclick: () => show("home") },
      gettext("Stop watching"))),
    room.status === "open" ? h("p", { text: gettext("Waiting for the host to start. Empty seats get the computer.") }) : null);
}

// ------------------------------------------------------------------------------------------- offline
// Without a network the page (kept by the service worker, /sw.js) opens and says so; it carries on when
// the connection comes back.
function setOffline(offline) {
  $("#offline").hidden = !offline;
}

function registerWorker() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
}

// ----------------------------------------------------------------------- the user socket (docs/party.md)
// /ws/me/ tells of turns in any of the player's games and of invitations, wherever the page is.
function openUserSocket() {
  if (!S.token || (S.userWs && S.userWs.readyState <= WebSocket.OPEN)) return;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/me/?token=${encodeURIComponent(S.token)}`);
  S.userWs = ws;
  let ping = null;
  ws.onopen = () => { S.userRetry = 0; ping = setInterval(() => ws.send(JSON.stringify({ type: "ping" })), 25000); };
  ws.onmessage = (ev) => { let msg; try { msg = JSON.parse(ev.data); } catch { return; } onUserMessage(msg); };
  ws.onclose = (ev) => {
    clearInterval(ping);
    if (S.userWs !== ws) return;
    S.userWs = null;
    if ([4401, 4409, 4410].includes(ev.code) || !S.token) return;  // signed out or sanctioned: the room says why
    setTimeout(openUserSocket, Math.min(30000, 1000 * 2 ** S.userRetry++));
  };
}

function closeUserSocket() {
  const ws = S.userWs;
  S.userWs = null;
  if (ws) ws.close();
}

function onUserMessage(msg) {
  if (msg.type === "turn") {
    const here = S.code && msg.room === S.code && !document.hidden;
    if (!here) {
      const text = fmt(gettext("Your turn in %(game)s (room %(code)s)."), { game: gameName(msg.game), code: msg.room || "" });
      notifyPlayer(text, msg.room ? `/room/${msg.room}` : null, msg.room);
    }
  } else if (msg.type === "invitation") {
    const text = fmt(gettext("%(name)s invites you to %(game)s (room %(code)s)."),
                     { name: msg.from.display_name, game: gameName(msg.game), code: msg.room });
    notifyPlayer(text, `/join/${msg.room}`, msg.room);
  } else if (msg.type === "hello" && msg.turns.length) {
    const others = msg.turns.filter((t) => t.room !== S.code);
    if (others.length) notifyPlayer(fmt(ngettext("It is your turn in %(n)s game.", "It is your turn in %(n)s games.", others.length),
                                        { n: others.length }), others[0].room ? `/room/${others[0].room}` : null, others[0].room);
  }
}

// A toast with a button to go there; with the page in the background and notifications on, the browser's.
function notifyPlayer(text, url, code) {
  const el = $("#toast");
  el.replaceChildren(h("span", { "data-testid": "notice", text }), code
    ? h("button", { type: "button", class: "small primary", onclick: () => { el.hidden = true; enterRoom(code); } }, gettext("Go"))
    : "");
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; }, 15000);
  if (S.sound) sounds.turn();
  if (document.hidden && S.notify && "Notification" in window && Notification.permission === "granted") {
    const n = new Notification("Chinchi", { body: text, tag: code || "chinchi" });
    n.onclick = () => { window.focus(); if (code) enterRoom(code); n.close(); };
  }
}

// ------------------------------------------------------------------------------ notifications and push
function setNotifyButton() {
  const on = S.notify && "Notification" in window && Notification.permission === "granted";
  $("#notify-toggle").setAttribute("aria-pressed", on ? "true" : "false");
  $("#notify-state").textContent = !("Notification" in window) ? gettext("This browser cannot show notifications.")
    : Notification.permission === "denied" ? gettext("Notifications are blocked in this browser's settings.")
    : on ? gettext("On: you hear of your turns and invitations when the page is hidden or closed.") : gettext("Off.");
}

function b64urlBytes(text) {
  const raw = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

// The push worker (static/web/push-sw.js) receives Web Push while no tab is open.
async function pushRegistration() {
  if (!("serviceWorker" in navigator) || !("PushManager" in window)) return null;
  return navigator.serviceWorker.register("/static/web/push-sw.js", { scope: "/static/web/" });
}

async function toggleNotifications() {
  if (!("Notification" in window)) { setNotifyButton(); return; }
  if (S.notify) {
    S.notify = false;
    store.set("notify", false);
    const reg = await pushRegistration().catch(() => null);
    const sub = reg && await reg.pushManager.getSubscription();
    if (sub) {
      await api("DELETE", "/api/push/subscriptions", { endpoint: sub.endpoint }).catch(() => null);
      await sub.unsubscribe().catch(() => null);
    }
    setNotifyButton();
    return;
  }
  const permission = await Notification.requestPermission();  // asked only now, after the player's click
  S.notify = permission === "granted";
  store.set("notify", S.notify);
  setNotifyButton();
  if (S.notify) await attempt(subscribePush);
}

async function subscribePush() {
  const reg = await pushRegistration();
  if (!reg) return;
  await navigator.serviceWorker.ready;
  const { public_key: key } = await api("GET", "/api/push/key");
  const sub = await reg.pushManager.getSubscription()
    || await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: b64urlBytes(key) });
  await api("POST", "/api/push/subscriptions", sub.toJSON());
}

// ------------------------------------------------------------------------------ invitations, friends
function onlineDot(f) {
  if (f.online === undefined) return null;
  return h("span", { class: "online " + (f.online ? "on" : "off"), "data-testid": "online",
                     text: f.online ? gettext("online") : gettext("offline") });
}

function renderInvite(room) {
  const box = h("div", { class: "invite inline-form" });
  const id = "invite-friend";
  // The choice survives the lobby's redraws (each room message redraws it), as the seats' levels do.
  const select = h("select", { id, onchange: (e) => { S.inviteTo = e.target.value; } },
    h("option", { value: "", text: gettext("Choose a friend") }));
  box.append(h("label", { for: id, text: gettext("Invite a friend") }), select,
    h("button", { type: "button", id: "invite-send", onclick: async () => {
      const to = select.value || S.inviteTo;
      if (!to) return;
      const answer = await attempt(() => api("POST", `/api/rooms/${room.code}/invite`, { user_id: Number(to) }));
      S.inviteTo = null;
      if (answer) toast(fmt(gettext("Invitation sent to %(name)s."), { name: answer.invited.display_name }));
    } }, gettext("Invite")));
  api("GET", "/api/friends").then((data) => {
    const seated = new Set(room.seats.filter((s) => s.user).map((s) => s.user.id));
    const friends = data.friends.filter((f) => !seated.has(f.player.id));
    friends.sort((a, b) => Number(b.online) - Number(a.online));
    for (const f of friends) {
      select.appendChild(h("option", { value: f.player.id, selected: String(f.player.id) === S.inviteTo,
        text: f.online ? fmt(gettext("%(name)s (online)"), { name: f.player.display_name }) : f.player.display_name }));
    }
    if (!friends.length) box.hidden = true;
  }).catch(() => { box.hidden = true; });
  return box;
}

// ------------------------------------------------------------------------ coins, challenges, XP, levels
function coinsText(n) { return fmt(ngettext("%(n)s coin", "%(n)s coins", n), { n }); }

function renderPot(pot, view) {
  const stakes = (pot.stakers || []).map((seat) => {
    const p = view.players.find((x) => x.seat === seat);
    return p ? p.display_name : fmt(gettext("Seat %(n)s"), { n: seat + 1 });
  });
  const parts = [fmt(gettext("Pot: %(coins)s"), { coins: coinsText(pot.total) })];
  if (pot.stake) parts.push(fmt(gettext("%(coins)s each from %(names)s"), { coins: coinsText(pot.stake), names: stakes.join(", ") }));
  if (pot.reentry_fee) parts.push(fmt(gettext("re-entry %(coins)s"), { coins: coinsText(pot.reentry_fee) }));
  return h("p", { class: "pot", "data-testid": "pot", text: parts.join(" · ") });
}

function levelBadge(seat) {
  const s = S.room && S.room.seats.find((x) => x.index === seat);
  if (!s || !s.user) return null;
  const uid = s.user.id;
  if (S.levels[uid] === undefined) {
    S.levels[uid] = null;  // read once
    api("GET", `/api/users/${uid}/stats`).then((st) => { S.levels[uid] = st.level; if (S.view) renderRoom(); }).catch(() => {});
    return null;
  }
  const level = S.levels[uid];
  return level ? h("span", { class: "level", "data-testid": "level", title: gettext("Level"),
                             text: fmt(gettext("Lv %(n)s"), { n: level.level ?? level }) }) : null;
}

async function loadXpLeaderboard(scope) {
  const body = $("#lb-xp-body");
  const page = await attempt(() => api("GET", `/api/leaderboard/xp?scope=${scope}`));
  body.replaceChildren();
  if (!page) return;
  const rows = page.results || [];
  if (!rows.length) { body.appendChild(h("p", { text: gettext("Nobody has experience yet.") })); return; }
  body.appendChild(h("div", { class: "scroll-x" }, h("table", { class: "grid", id: "lb-xp" },
    h("thead", {}, h("tr", {}, [gettext("Rank"), gettext("Player"), gettext("XP"), gettext("Level")].map((c) => h("th", { scope: "col", text: c })))),
    h("tbody", {}, rows.map((r) => h("tr", { class: r.player.id === S.me.id ? "me" : "" },
      h("td", { text: String(r.rank) }), h("td", { text: r.player.display_name }), h("td", { text: String(r.xp) }),
      h("td", { text: String(r.level && r.level.level !== undefined ? r.level.level : r.level) })))))));
}

const LEDGER_REASONS = () => ({
  start_grant: gettext("Welcome coins"), daily_grant: gettext("Daily coins"), stake: gettext("Stake"),
  reentry: gettext("Re-entry"), pot: gettext("Pot won"), refund: gettext("Refund"), challenge: gettext("Challenge"),
  adjustment: gettext("Adjustment"),
});

async function loadWallet() {
  const [wallet, ch] = await Promise.all([attempt(() => api("GET", "/api/me/wallet")), attempt(() => api("GET", "/api/challenges"))]);
  const body = $("#wallet-body");
  body.replaceChildren();
  if (wallet) {
    const daily = wallet.daily_grant;
    body.append(h("p", { class: "balance", "data-testid": "balance", text: fmt(gettext("Balance: %(coins)s"), { coins: coinsText(wallet.balance) }) }),
      daily.available && daily.amount > 0
        ? h("button", { type: "button", class: "primary", id: "daily-claim", onclick: () => attempt(async () => {
          const out = await api("POST", "/api/me/wallet/daily");
          toast(fmt(gettext("+%(coins)s today."), { coins: coinsText(out.entry.amount) }));
          loadWallet();
        }) }, fmt(gettext("Claim today's %(coins)s"), { coins: coinsText(daily.amount) }))
        : h("p", { text: fmt(gettext("Next daily coins: %(when)s"), { when: new Date(daily.next_at).toLocaleString() }) }));
    const reasons = LEDGER_REASONS();
    const rows = wallet.ledger.results || [];
    $("#ledger-body").replaceChildren(rows.length ? h("div", { class: "scroll-x" }, h("table", { class: "grid", id: "ledger" },
      h("thead", {}, h("tr", {}, [gettext("When"), gettext("What"), gettext("Coins"), gettext("Balance")].map((c) => h("th", { scope: "col", text: c })))),
      h("tbody", {}, rows.map((e) => h("tr", {},
        h("td", { text: new Date(e.created_at).toLocaleString() }),
        h("td", { text: (reasons[e.reason] || e.reason) + (e.game_id ? ` · #${e.game_id}` : "") }),
        h("td", { class: e.amount < 0 ? "minus" : "plus", text: (e.amount > 0 ? "+" : "") + e.amount }),
        h("td", { text: String(e.balance_after) }))))))
      : h("p", { text: gettext("None.") }));
  }
  const cbody = $("#challenges-body");
  cbody.replaceChildren();
  if (!ch) return;
  cbody.appendChild(h("ul", { class: "challenges" }, ch.challenges.map((c) => h("li", { "data-testid": "challenge" },
    h("strong", { text: `${gameName(c.game)} · ${c.name}` }),
    h("span", { text: c.description }),
    h("progress", { max: c.target, value: Math.min(c.progress, c.target), "aria-label": c.name }),
    h("span", { text: fmt(gettext("%(n)s of %(target)s · %(coins)s, %(xp)s XP"), { n: c.progress, target: c.target, coins: coinsText(c.reward.coins), xp: c.reward.xp }) }),
    c.claimed ? h("span", { class: "tags", text: gettext("claimed") })
      : h("button", { type: "button", class: "small primary", disabled: !c.completed, onclick: () => attempt(async () => {
        await api("POST", `/api/challenges/${c.id}/claim`);
        loadWallet();
      }) }, gettext("Claim"))))));
}

// ------------------------------------------------------------------------------------------ your games
async function downloadRecord(game) {
  const record = await attempt(() => api("GET", game.record_url.replace(/^https?:\/\/[^/]+/, "")));
  if (!record) return;
  const url = URL.createObjectURL(new Blob([JSON.stringify(record, null, 2)], { type: "application/json" }));
  const a = h("a", { href: url, download: `chinchi-game-${game.id}.json` });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function loadMyGames(before) {
  const body = $("#games-body");
  const page = await attempt(() => api("GET", "/api/me/games" + (before ? `?before=${before}` : "")));
  if (!before) body.replaceChildren();
  $("#games-more")?.remove();
  if (!page) return;
  if (!page.games.length && !before) { body.appendChild(h("p", { text: gettext("No finished games yet.") })); return; }
  const results = { win: gettext("Won"), draw: gettext("Draw"), loss: gettext("Lost") };
  let table = $("#my-games tbody");
  if (!table) {
    table = h("tbody");
    body.appendChild(h("div", { class: "scroll-x" }, h("table", { class: "grid", id: "my-games" },
      h("thead", {}, h("tr", {}, [gettext("Game"), gettext("Date"), gettext("Players"), gettext("Result"), gettext("Rating"), ""].map((c) => h("th", { scope: "col", text: c })))),
      table)));
  }
  for (const g of page.games) {
    const change = g.rating_change === null ? "–" : (g.rating_change > 0 ? "+" : "") + g.rating_change;
    table.appendChild(h("tr", { "data-game": g.id },
      h("td", { text: gameName(g.game) + (g.ranked ? " · " + gettext("ranked") : "") }),
      h("td", { text: g.finished_at ? new Date(g.finished_at).toLocaleString() : "" }),
      h("td", { text: g.seats.map((s) => s.display_name).join(", ") }),
      h("td", { text: g.status === "aborted" ? gettext("Aborted") : `${results[g.result] || ""} (${fmt(gettext("place %(n)s"), { n: g.place })})` }),
      h("td", { text: change }),
      h("td", {}, h("button", { type: "button", class: "small", onclick: () => downloadRecord(g),
        "aria-label": fmt(gettext("Download game %(n)s"), { n: g.id }) }, gettext("Download")))));
  }
  if (page.next_before) {
    body.appendChild(h("button", { type: "button", id: "games-more", onclick: () => loadMyGames(page.next_before) }, gettext("More")));
  }
}

// ------------------------------------------------------------------------------------------- start
function setPrefButtons() {
  $("#sound-toggle").setAttribute("aria-pressed", S.sound ? "true" : "false");
  $("#suits-toggle").setAttribute("aria-pressed", S.french ? "true" : "false");
}

function bindGlobal() {
  bindAccountForms();
  for (const b of document.querySelectorAll("#menu button")) b.addEventListener("click", () => show(b.dataset.screen));
  $("#home-link").addEventListener("click", (e) => { if (S.me) { e.preventDefault(); show("home"); } });
  $("#create-form").addEventListener("submit", createRoom);
  $("#join-form").addEventListener("submit", (e) => { e.preventDefault(); enterRoom($("#join-code").value); });
  $("#chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("#chat-text").value.trim();
    if (!text) return;
    chatSend({ text });
    $("#chat-text").value = "";
  });
  $("#lb-form").addEventListener("submit", (e) => { e.preventDefault(); loadLeaderboard(); });
  $("#friend-form").addEventListener("submit", (e) => { e.preventDefault(); addFriend(Number($("#friend-id").value)); });
  $("#queue-form").addEventListener("submit", (e) => {
    e.preventDefault();
    attempt(async () => { await api("POST", "/api/queue", { game: $("#queue-game").value, seats: Number($("#queue-seats").value) }); loadQueue(); });
  });
  $("#notify-toggle").addEventListener("click", toggleNotifications);
  $("#queue-leave").addEventListener("click", () => attempt(async () => { await api("DELETE", "/api/queue"); loadQueue(); }));
  $("#sound-toggle").addEventListener("click", () => { S.sound = !S.sound; store.set("sound", S.sound); setPrefButtons(); if (S.sound) beep(); });
  $("#suits-toggle").addEventListener("click", () => { S.french = !S.french; store.set("french", S.french); setPrefButtons(); renderRoom(); });
  $(".lang").addEventListener("submit", () => { $("#lang-next").value = location.pathname + location.hash; });
  window.addEventListener("popstate", () => route());
}

function route() {
  const f = location.pathname.match(/^\/friend\/([A-Za-z0-9]+)\/?$/);
  if (f) {
    const code = f[1].toUpperCase();
    if (!S.me) {
      S.pendingFriend = code;
      $("#welcome-title").textContent = gettext("A friend sent you their link: choose a name, then you are friends.");
      show("welcome");
      return;
    }
    useFriendCode(code);
    return;
  }
  const tm = location.pathname.match(/^\/tournament\/([A-Za-z0-9]+)\/?$/);
  if (tm) {
    const code = tm[1].toUpperCase();
    if (!S.me) {
      S.pendingTournament = code;
      $("#welcome-title").textContent = fmt(gettext("You are invited to tournament %(code)s: sign in to join."), { code });
      show("welcome");
      return;
    }
    T.code = code;
    show("tournaments");
    return;
  }
  if (!location.pathname.startsWith("/tournament/") && location.hash === "#tournaments") T.code = null;
  const r = location.pathname.match(/^\/replay\/([0-9]+)\/?$/);
  if (r) {
    if (!S.me) { S.pendingReplay = Number(r[1]); show("welcome"); return; }
    openReplay(Number(r[1]));
    return;
  }
  const w = location.pathname.match(/^\/watch\/([A-Za-z0-9]+)\/?$/);
  if (w) {
    if (!S.me) { S.pendingWatch = w[1]; show("welcome"); return; }
    if (S.code !== w[1].toUpperCase()) watchRoom(w[1]);
    return;
  }
  const m = location.pathname.match(/^\/(join|room)\/([A-Za-z0-9]+)\/?$/);
  if (m) {
    const code = m[2].toUpperCase();
    if (!S.me) {
      S.pendingCode = code;
      $("#welcome-title").textContent = fmt(gettext("You are invited to room %(code)s: choose a name to join."), { code });
      show("welcome");
      return;
    }
    if (S.code !== code) enterRoom(code);
    return;
  }
  if (!S.me) { show("welcome"); return; }
  const screen = location.hash.slice(1);
  show(SCREENS.includes(screen) && !["welcome", "room"].includes(screen) ? screen : "home");
}

async function start() {
  bindGlobal();
  setPrefButtons();
  registerWorker();
  setOffline(!navigator.onLine);
  window.addEventListener("offline", () => setOffline(true));
  window.addEventListener("online", () => { setOffline(false); if (!S.me && S.token) resume(); });
  await resume();
}

async function resume() {
  if (S.token) {
    try { S.me = await api("GET", "/api/me"); } catch (err) {
      if (err.status !== 401) { toast(errorText(err)); offerAppeal(err.body); }
    }
  }
  if (S.me) openUserSocket();
  route();
  loadNotices();
}

const voice = createVoice({
  send, api, gettext, fmt, toast, seatName, mySeat, isHost,
  code: () => S.code,
  patchRoom: (body) => roomCall("PATCH", "", body),
  onChange: () => { if (S.room && !$("#screen-room").hidden) voice.render($("#voice"), S.room, h); },
});

start();

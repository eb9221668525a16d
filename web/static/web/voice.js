// Voice at the table (docs/voice.md): WebRTC audio between the seated players who join voice, a full mesh;
// the room socket only carries the signalling (voice_join, voice_leave, voice_signal). The microphone is
// asked for only when the player presses "Join voice". The newcomer offers to everyone in voice; the other
// side answers; if two offers cross, the higher seat gives way (it rolls its own back). Each peer's
// negotiation steps run one after another (``p.steps``): an offer that arrives while this page sets its own
// is read once that one is set, as the crossing it is.

export function createVoice(ctx) {
  // ctx: { send(msg) -> bool, api(method, path), code(), mySeat() -> int|null, seatName(seat), toast(text),
  //        gettext, fmt, onChange() (redraw the panel) }
  const { gettext, fmt } = ctx;
  const V = {
    state: "off",  // off | joining | on
    stream: null,  // the microphone
    ice: [],
    inVoice: new Set(),  // seats in voice, as the server says
    sessions: {},  // seat -> the id of its latest join known here (messages about older joins are late)
    mySession: null,  // this page's join
    peers: new Map(),  // seat -> { pc, audio, analyser, pending: [], steps: Promise, level }
    selfMuted: false,
    peerMuted: {},  // seat -> bool (local only)
    peerVolume: {},  // seat -> 0..1 (local only)
    audioCtx: null,
    localAnalyser: null,
    meter: null,
    speaking: new Set(),  // seats speaking now ("me" for this page's own)
    log: [],  // the last voice messages and closes, for the curious (window.chinchiVoice.log())
  };

  function note(what) { V.log.push(what); if (V.log.length > 60) V.log.shift(); }

  function changed() { ctx.onChange(); }

  function level(analyser) {
    const data = new Uint8Array(analyser.fftSize);
    analyser.getByteTimeDomainData(data);
    let sum = 0;
    for (const v of data) { const x = (v - 128) / 128; sum += x * x; }
    return Math.sqrt(sum / data.length);
  }

  function analyse(stream) {
    if (!V.audioCtx) return null;
    const source = V.audioCtx.createMediaStreamSource(stream);
    const analyser = V.audioCtx.createAnalyser();
    analyser.fftSize = 512;
    source.connect(analyser);  // not to the destination: the <audio> element plays the peer
    return analyser;
  }

  function measure() {  // the speaking indicator: an RMS level over a threshold
    const now = new Set();
    if (V.localAnalyser && !V.selfMuted && level(V.localAnalyser) > 0.02) now.add("me");
    for (const [seat, p] of V.peers) if (p.analyser && !V.peerMuted[seat] && level(p.analyser) > 0.02) now.add(seat);
    const before = [...V.speaking].sort().join();
    V.speaking = now;
    if ([...now].sort().join() !== before) {
      for (const li of document.querySelectorAll("#voice-list [data-seat]")) {
        const key = li.dataset.seat === String(ctx.mySeat()) ? "me" : Number(li.dataset.seat);
        li.classList.toggle("speaking", now.has(key));
      }
    }
  }

  async function join() {
    if (V.state !== "off") return;
    const code = ctx.code();
    V.state = "joining";
    changed();
    try {
      const info = await ctx.api("GET", `/api/rooms/${encodeURIComponent(code)}/voice`);
      V.ice = info.ice_servers || [];
      V.stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true } });
    } catch (err) {
      V.state = "off";
      stopLocal();
      ctx.toast(err && err.name === "NotAllowedError" ? gettext("The microphone was not allowed.")
        : (err && err.body && err.body.detail) || gettext("Voice is not available now."));
      changed();
      return;
    }
    if (ctx.code() !== code || V.state !== "joining") { stopLocal(); return; }
    try { V.audioCtx = new AudioContext(); V.localAnalyser = analyse(V.stream); } catch { V.audioCtx = null; }
    for (const t of V.stream.getAudioTracks()) t.enabled = !V.selfMuted;
    V.meter = setInterval(measure, 150);
    if (!ctx.send({ type: "voice_join" })) { stop(); ctx.toast(gettext("Voice is not available now.")); }
  }

  function stopLocal() {
    if (V.stream) for (const t of V.stream.getTracks()) t.stop();
    V.stream = null;
    clearInterval(V.meter);
    V.meter = null;
    V.localAnalyser = null;
    if (V.audioCtx) { V.audioCtx.close().catch(() => {}); V.audioCtx = null; }
  }

  function closePeer(seat, why) {
    const p = V.peers.get(seat);
    if (!p) return;
    note(`close ${seat}: ${why}`);
    V.peers.delete(seat);
    p.pc.onicecandidate = p.pc.ontrack = p.pc.onconnectionstatechange = null;
    p.pc.close();
    if (p.audio) { p.audio.srcObject = null; p.audio.remove(); }
    V.speaking.delete(seat);
  }

  function stop() {  // out of voice on this page (the server is told by the caller when it has to be)
    for (const seat of [...V.peers.keys()]) closePeer(seat, "stop");
    stopLocal();
    V.state = "off";
    V.mySession = null;
    V.speaking.clear();
    changed();
  }

  function leave() {
    if (V.state === "off") return;
    ctx.send({ type: "voice_leave" });
    stop();
  }

  function peer(seat) {
    let p = V.peers.get(seat);
    if (p) return p;
    const pc = new RTCPeerConnection({ iceServers: V.ice });
    p = { pc, audio: null, analyser: null, pending: [], steps: Promise.resolve() };
    V.peers.set(seat, p);
    for (const t of V.stream.getTracks()) pc.addTrack(t, V.stream);
    pc.onicecandidate = (e) => ctx.send({ type: "voice_signal", to_seat: seat, candidate: e.candidate ? e.candidate.toJSON() : null });
    pc.ontrack = (e) => {
      if (p.audio) return;
      const stream = e.streams[0] || new MediaStream([e.track]);
      p.audio = document.createElement("audio");
      p.audio.autoplay = true;
      p.audio.dataset.seat = seat;
      p.audio.srcObject = stream;
      p.audio.muted = !!V.peerMuted[seat];
      p.audio.volume = V.peerVolume[seat] ?? 1;
      document.getElementById("voice-audio").appendChild(p.audio);
      p.audio.play().catch(() => {});
      p.analyser = analyse(stream);
    };
    pc.onconnectionstatechange = () => changed();
    return p;
  }

  // Run ``step`` after the peer's earlier negotiation steps (its result or error is the returned promise's).
  function inTurn(p, step) {
    const run = p.steps.then(step);
    p.steps = run.catch(() => {});
    return run;
  }

  function offer(seat) {  // a failed offer closes that connection (not a newer one of the same seat)
    const p = peer(seat);
    inTurn(p, async () => {
      if (p.pc.signalingState !== "stable") return;  // a negotiation is under way: it connects the two
      await p.pc.setLocalDescription(await p.pc.createOffer());
      const d = p.pc.localDescription;
      ctx.send({ type: "voice_signal", to_seat: seat, sdp: { type: d.type, sdp: d.sdp } });
    }).catch((e) => { if (V.peers.get(seat) === p) closePeer(seat, String(e)); });
  }

  async function flush(p) {
    for (const c of p.pending.splice(0)) await p.pc.addIceCandidate(c).catch(() => {});
  }

  async function signal(msg) {
    const seat = msg.from_seat;
    if (V.state !== "on") return;
    const p = msg.sdp && msg.sdp.type === "offer" ? peer(seat) : V.peers.get(seat);
    if (!p || !(msg.sdp || "candidate" in msg)) return;
    await inTurn(p, async () => {
      if (V.peers.get(seat) !== p) return;  // closed meanwhile
      if (msg.sdp) {
        if (msg.sdp.type === "offer" && p.pc.signalingState !== "stable") {
          if (ctx.mySeat() < seat) return;  // the lower seat keeps its own offer; the other gives way
          await p.pc.setLocalDescription({ type: "rollback" });
        }
        if (msg.sdp.type === "answer" && p.pc.signalingState !== "have-local-offer") return;  // to an offer rolled back
        await p.pc.setRemoteDescription(msg.sdp);
        await flush(p);
        if (msg.sdp.type === "offer") {
          await p.pc.setLocalDescription(await p.pc.createAnswer());
          const d = p.pc.localDescription;
          ctx.send({ type: "voice_signal", to_seat: seat, sdp: { type: d.type, sdp: d.sdp } });
        }
      } else {
        const c = msg.candidate || null;
        if (p.pc.remoteDescription) await p.pc.addIceCandidate(c).catch(() => {}); else p.pending.push(c);
      }
    });
  }

  const LEFT_TEXT = {
    muted: () => gettext("You are muted: you left voice."),
    voice_off: () => gettext("The host turned voice off."),
    replaced: () => gettext("You joined voice from another window."),
    seat: () => gettext("You no longer hold your seat: you left voice."),
  };

  // Returns true when the message was a voice message.
  function onMessage(msg) {
    const mine = ctx.mySeat();
    note(msg.type === "voice_signal" ? `signal from ${msg.from_seat}: ${msg.sdp ? msg.sdp.type : "candidate"}`
      : JSON.stringify(msg));
    if (msg.type === "voice_peers") {
      V.inVoice = new Set(msg.seats);
      V.sessions = {};
      for (const p of msg.peers || []) V.sessions[p.seat] = p.session;
      if (V.state === "joining" && msg.seats.includes(mine)) {
        V.state = "on";
        V.mySession = V.sessions[mine];
        for (const seat of msg.seats) if (seat !== mine) offer(seat);
      }
      changed();
    } else if (msg.type === "voice_joined") {
      const known = V.sessions[msg.seat];
      if (known !== undefined && msg.session <= known) return true;  // a join this page knew already
      V.sessions[msg.seat] = msg.session;
      V.inVoice.add(msg.seat);
      // The seat joined again (from another window) while this page talked to its last join: that one is
      // gone, and the new one offers.
      if (known !== undefined && msg.seat !== mine) closePeer(msg.seat, "joined again");
      changed();
    } else if (msg.type === "voice_left") {
      const current = msg.session === V.sessions[msg.seat];  // else an older join of the seat left
      if (current) { V.inVoice.delete(msg.seat); delete V.sessions[msg.seat]; }
      if (msg.seat === mine) {
        if (V.state !== "off" && (msg.session === V.mySession || (V.mySession === null && current))) {
          stop();
          const text = LEFT_TEXT[msg.reason];
          if (text) ctx.toast(text());
        }
      } else if (current) closePeer(msg.seat, "left");
      changed();
    } else if (msg.type === "voice_signal") {
      signal(msg).catch((e) => note(`signal failed: ${e}`));
    } else return false;
    return true;
  }

  function setSelfMuted(muted) {
    V.selfMuted = muted;
    if (V.stream) for (const t of V.stream.getAudioTracks()) t.enabled = !muted;
    changed();
  }

  function setPeer(seat, { muted, volume }) {
    if (muted !== undefined) V.peerMuted[seat] = muted;
    if (volume !== undefined) V.peerVolume[seat] = volume;
    const p = V.peers.get(seat);
    if (p && p.audio) { p.audio.muted = !!V.peerMuted[seat]; p.audio.volume = V.peerVolume[seat] ?? 1; }
  }

  // The panel: join / leave / mute me, and who is in voice (speaking, mute, volume for each other seat).
  let drawn = "";  // what the panel shows now: it is not rebuilt (a slider being dragged) when that is unchanged
  function render(box, room, h) {
    const mine = ctx.mySeat();
    box.hidden = mine === null;
    if (mine === null) return;
    const shown = JSON.stringify([mine, room.voice_allowed, V.state, V.selfMuted, ctx.isHost(), V.peerMuted,
      [...V.inVoice].sort().map((seat) => [seat, ctx.seatName(seat), V.peers.has(seat) && V.peers.get(seat).pc.connectionState])]);
    if (shown === drawn && box.firstChild) return;
    drawn = shown;
    const parts = [];
    const buttons = h("div", { class: "voice-controls" });
    if (!room.voice_allowed) {
      if (V.state !== "off") stop();
      parts.push(h("p", { class: "muted-note", text: gettext("Voice is off in this room.") }));
    } else if (V.state === "off") {
      buttons.appendChild(h("button", { type: "button", id: "voice-join", class: "primary", onclick: join }, gettext("Join voice")));
    } else {
      buttons.appendChild(h("button", { type: "button", id: "voice-mute", "aria-pressed": V.selfMuted ? "true" : "false",
        onclick: () => setSelfMuted(!V.selfMuted) }, V.selfMuted ? gettext("Unmute me") : gettext("Mute me")));
      buttons.appendChild(h("button", { type: "button", id: "voice-leave", onclick: leave }, gettext("Leave voice")));
      if (V.state === "joining") parts.push(h("p", { class: "muted-note", text: gettext("Joining voice…") }));
    }
    if (ctx.isHost()) {
      buttons.appendChild(h("label", { class: "voice-switch" },
        h("input", { type: "checkbox", id: "voice-allowed", checked: !!room.voice_allowed,
          onchange: (e) => ctx.patchRoom({ voice_allowed: e.target.checked }) }),
        " ", gettext("Voice in this room")));
    }
    const list = h("ul", { id: "voice-list", class: "voice-list", "aria-label": gettext("In voice") });
    for (const seat of [...V.inVoice].sort((a, b) => a - b)) {
      const me = seat === mine;
      const p = V.peers.get(seat);
      const state = me ? "" : p ? p.pc.connectionState : (V.state === "on" ? "new" : "");
      const speaking = V.speaking.has(me ? "me" : seat);
      const li = h("li", { class: "voice-peer" + (speaking ? " speaking" : ""), "data-seat": seat, "data-state": state },
        h("span", { class: "voice-dot", "aria-hidden": "true" }),
        h("span", { class: "voice-name", text: me ? fmt(gettext("%(name)s (you)"), { name: ctx.seatName(seat) }) : ctx.seatName(seat) }));
      if (!me && V.state === "on") {
        const name = ctx.seatName(seat);
        li.appendChild(h("button", { type: "button", class: "voice-peer-mute", "aria-pressed": V.peerMuted[seat] ? "true" : "false",
          "aria-label": fmt(gettext("Mute %(name)s for me"), { name }),
          onclick: () => { setPeer(seat, { muted: !V.peerMuted[seat] }); changed(); } },
        V.peerMuted[seat] ? gettext("Unmute") : gettext("Mute")));
        li.appendChild(h("input", { type: "range", min: "0", max: "1", step: "0.05", value: String(V.peerVolume[seat] ?? 1),
          class: "voice-volume", "aria-label": fmt(gettext("Volume of %(name)s"), { name }),
          oninput: (e) => setPeer(seat, { volume: Number(e.target.value) }) }));
      }
      list.appendChild(li);
    }
    if (!V.inVoice.size) list.appendChild(h("li", { class: "muted-note", text: gettext("Nobody is in voice.") }));
    box.replaceChildren(h("h3", { text: gettext("Voice") }), buttons, ...parts, list);
  }

  // An error answer: a refused voice_join (muted, voice off...) ends the joining.
  const JOIN_REFUSALS = new Set(["muted", "voice_off", "not_a_player", "throttled", "not_found", "banned", "suspended"]);
  function onError(msg) { if (V.state === "joining" && JOIN_REFUSALS.has(msg.code)) { ctx.send({ type: "voice_leave" }); stop(); } }

  // The socket closed: the server took this page out of voice.
  function socketClosed() { V.inVoice.clear(); V.sessions = {}; if (V.state !== "off") stop(); }

  window.addEventListener("pagehide", leave);
  // For tests and the curious: the peer connections by seat.
  window.chinchiVoice = { connections: () => Object.fromEntries([...V.peers].map(([s, p]) => [s, p.pc])),
    state: () => V.state, log: () => V.log.slice() };

  return { onMessage, onError, render, leave, socketClosed };
}

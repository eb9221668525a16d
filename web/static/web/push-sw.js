// The push worker (docs/party.md "Web Push"): shows a Web Push (a turn, an invitation) while no page of
// the game is open, and opens the room when the notification is clicked. Payload: {title, type, room, url?,
// invite_url?, from?, game}.
self.addEventListener("push", (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch { data = {}; }
  const body = data.type === "invitation" && data.from
    ? `${data.from.display_name} · ${data.game} · ${data.room}`
    : `${data.game || ""} · ${data.room || ""}`;
  const url = data.type === "invitation" ? `/join/${data.room}` : data.room ? `/room/${data.room}` : "/";
  event.waitUntil(self.registration.showNotification(data.title || "Chinchi", { body, tag: data.room || "chinchi", data: { url } }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || "/";
  event.waitUntil(self.clients.matchAll({ type: "window" }).then((list) => {
    for (const c of list) if ("focus" in c) { c.navigate(url); return c.focus(); }
    return self.clients.openWindow(url);
  }));
});

"""The web client: a page served by the service that plays through the public REST API and the room
WebSocket only, like any phone app (README.md "The web client")."""

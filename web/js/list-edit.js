// A list parameter that the world tools edit on the stage (`obstacles`, `attractors`). Every
// edit sends the whole new list as one `set` request, which the server checks, applies, logs and
// broadcasts like any parameter. The page draws the server's list, not its own guess: an edit on
// its way shows only until the server's state moves past it, or until the server refuses it; a
// drag in progress shows its preview instead.

/**
 * The list parameter `key`: `request` sends a request to the server (connection.js) and
 * `serverState()` gives the latest state message.
 */
export function createListEdit({ request, serverState, key }) {
  let pending = null; // {revision, list}: an edit sent, shown until the state moves past it
  let preview = null; // the list a drag in progress shows, or null

  const serverList = () => serverState()?.params?.[key] ?? [];

  return {
    serverList,
    /** The list to draw: a drag's preview, an edit on its way, or the server's. */
    shown: () => preview ?? pending?.list ?? serverList(),
    /** Shows `list` (a drag in progress) without sending it; null shows the rest again. */
    preview(list) {
      preview = list;
    },
    /** Sends `list` without waiting for it: a step of a drag, which its preview shows meanwhile. */
    send(list) {
      request({ type: 'set', key, value: list }, key);
    },
    /** Sends `list` as the new value and shows it until the server's state moves past it. */
    commit(list) {
      preview = null;
      pending = { revision: serverState()?.revision, list };
      request({ type: 'set', key, value: list }, key);
    },
    /** A state message came: an edit on its way is through once the state has moved past it. */
    follow(state) {
      if (pending && state.revision !== pending.revision) pending = null;
    },
    /** The server refused a request sent with `refusedKey`: an edit of this list shows no more. */
    refused(refusedKey) {
      if (refusedKey === key) pending = null;
    },
    /** A new connection starts from the server's state. */
    forget() {
      pending = null;
    },
  };
}

/** A key ring's resource name, `projects/PROJECT/locations/LOCATION/keyRings/KEY_RING` (the module's check and the store's). */
export const KEY_RING_NAME = /^projects\/[^/]+\/locations\/[^/]+\/keyRings\/[a-zA-Z0-9_-]{1,63}$/;

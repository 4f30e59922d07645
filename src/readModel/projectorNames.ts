/**
 * The names of the projectors: their `projection_checkpoint` rows and the `name` part of a
 * `msgx_projection` notification. The read API reads the flight projector's checkpoint by name.
 */
export const FLIGHTS_PROJECTOR = 'flights';
export const OUTBOX_PROJECTOR = 'outbox';
/** Reference data and seasonal schedules (src/projections/reference). */
export const REFERENCE_PROJECTOR = 'reference';

import type { ApiHandler } from './api.ts';
import { apiVersions } from './apiVersions.ts';
import { createTopics } from './createTopics.ts';
import { fetch } from './fetch.ts';
import { findCoordinator, heartbeat, joinGroup, leaveGroup, syncGroup } from './groupMembership.ts';
import { initProducerId } from './initProducerId.ts';
import { listOffsets } from './listOffsets.ts';
import { metadata } from './metadata.ts';
import { offsetCommit, offsetFetch } from './offsets.ts';
import { produce } from './produce.ts';

/** Every API the broker implements; ApiVersions advertises exactly these versions. */
export const handlers: readonly ApiHandler[] = [
  apiVersions,
  metadata,
  initProducerId,
  produce,
  fetch,
  listOffsets,
  findCoordinator,
  joinGroup,
  syncGroup,
  heartbeat,
  leaveGroup,
  offsetFetch,
  offsetCommit,
  createTopics,
];

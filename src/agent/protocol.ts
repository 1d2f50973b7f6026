/**
 * The agent protocol's constants and message shapes, shared by the server (api/routes/agent-protocol.ts) and the
 * remote agent (agent/http-transport.ts). Written down in docs/agent-protocol.md; change both together.
 */
/**
 * 2: journeys (their recording and secrets in a claim's options, a failed journey's progress with its failure).
 * 3: device classes (a claim's conditions name the device and its CPU target, which the agent calibrates its host to; the
 * result says the device and the CPU it ran on): an agent of 2 would run a phone on its own CPU without a word.
 */
export const AGENT_PROTOCOL = 3;
export const AGENT_PROTOCOL_HEADER = 'webgauge-agent-protocol';
export const AGENT_ID_HEADER = 'webgauge-agent-id';
export const CHECKSUM_HEADER = 'webgauge-content-sha256';
export const AGENT_PREFIX = '/agent/v1';
/** The version of this code, sent at hello (logged by the server, shown in `webgauge location list`). */
export const AGENT_VERSION = '0.1.0';
/** Longest a claim waits for work before it answers 204. */
export const MAX_CLAIM_WAIT_MS = 30_000;
/** Largest result upload (the response bodies of a legacy report can reach a few hundred MB). */
export const MAX_RESULT_BYTES = 512 * 1024 * 1024;

export interface HelloRequest {
  agent_id: string;
  version: string;
  hostname: string;
  browsers: string[];
  slots: number;
}

export interface HelloResponse {
  protocol: number;
  location: { id: string; name: string; region: string };
  lease_ms: number;
  heartbeat_ms: number;
}

export interface ClaimResponse {
  test_id: string;
  /** The test's analysis options, secrets included: the load needs them. */
  options: unknown;
}

/** Every error answer: a machine-readable code and a sentence for the operator. */
export interface ProtocolError {
  error: { code: 'token' | 'protocol' | 'input' | 'unknown_agent' | 'lease_lost' | 'out_of_storage' | 'unavailable' | 'checksum' | 'bundle' | 'internal'; message: string };
}

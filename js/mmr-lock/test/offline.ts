// A signer that cannot reach any node, for the tests of what the kit refuses before it asks
// one: every fetch is recorded and fails.

import { ClientPublicTestnet, SignerCkbPrivateKey } from "@ckb-ccc/core";

/** A code cell that exists nowhere (its out point and code hash are filler bytes). */
export const NOWHERE = {
  outPoint: { txHash: "0x" + "22".repeat(32), index: 0 },
  codeHash: "0x" + "33".repeat(32),
  hashType: "data2" as const,
};

/** Runs `body` with a signer whose client could only reach a closed port, had it been asked,
 * and `requests`, the URL of every fetch tried meanwhile (each one fails). */
export async function offline(body: (signer: SignerCkbPrivateKey, requests: string[]) => Promise<void>): Promise<void> {
  const requests: string[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input: unknown) => {
    requests.push(String(input));
    throw new Error("no network in this test");
  };
  try {
    const client = new ClientPublicTestnet({ url: "http://127.0.0.1:9/", fallbacks: [] });
    await body(new SignerCkbPrivateKey(client, "0x" + "11".repeat(32)), requests);
  } finally {
    globalThis.fetch = realFetch;
  }
}

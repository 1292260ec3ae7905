import { afterAll } from "vitest";
import { faultTally } from "../../test/support/faulty-d1";
import { report } from "./report";
// The suite's fault tests, run here with every D1 call faulted (or this run's share of them)
// instead of a seeded sample.
import "../../test/notes/extraction-faults.test";
import "../../test/portability/write-faults.test";
import "../../test/portability/move.test";
import "../../test/notes/consolidation-faults.test";
import "../../test/queue/queue-faults.test";

afterAll(() => report({ tests: faultTally }));

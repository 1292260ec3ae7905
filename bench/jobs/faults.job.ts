import { afterAll } from "vitest";
import { faultTally } from "../../test/support/faulty-d1";
import { report } from "./report";
// The suite's fault tests, run here with every D1 call faulted instead of a seeded sample.
import "../../test/minds/move.test";
import "../../test/minds/write-faults.test";

afterAll(() => report({ tests: faultTally }));

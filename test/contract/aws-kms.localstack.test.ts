import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { describe } from 'vitest';
import { AwsKmsKeyStore } from '../../adapters/keystore/aws-kms/aws-kms.key-store.js';
import { containerRuntimeAvailable } from '../support/container-runtime.js';
import { describeKeyStoreContract } from 'wallet-vault/testing';

const runtime = await containerRuntimeAvailable();
if (!runtime.available) console.warn(`SKIPPED: aws-kms against LocalStack was not run: no container runtime (${runtime.reason})`);

// The same contract against LocalStack's KMS, where a container runtime exists.
describe.skipIf(!runtime.available)(
  runtime.available ? 'aws-kms against LocalStack (testcontainers)' : `SKIPPED: aws-kms against LocalStack: no container runtime (${runtime.reason})`,
  () => {
    describeKeyStoreContract('aws-kms (LocalStack)', async () => {
      const container: StartedTestContainer = await new GenericContainer('localstack/localstack:3')
        .withEnvironment({ SERVICES: 'kms' })
        .withExposedPorts(4566)
        .withWaitStrategy(Wait.forLogMessage('Ready.'))
        .start();
      const store = new AwsKmsKeyStore({
        region: 'us-east-1',
        endpoint: `http://${container.getHost()}:${container.getMappedPort(4566)}`,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      });
      return { store, cleanup: async () => void (await container.stop()) };
    });
  },
);

package pgaq.jms;

import javax.jms.Queue;
import javax.jms.Topic;

/** Destinations as the session's are to the codec: a Queue or Topic named "OWNER.NAME". */
final class MessageStubs {
    private MessageStubs() {
    }

    static final class StubQueue implements Queue {
        private final String name;

        StubQueue(String name) {
            this.name = name;
        }

        @Override
        public String getQueueName() {
            return name;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static final class StubTopic implements Topic {
        private final String name;

        StubTopic(String name) {
            this.name = name;
        }

        @Override
        public String getTopicName() {
            return name;
        }

        @Override
        public String toString() {
            return name;
        }
    }
}

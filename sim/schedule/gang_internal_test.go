package schedule

import (
	"testing"

	"github.com/drasim/drasim/sim/schedule/plugins/gangscheduling"
)

// The replay words a gang's pod still kept out of the activeQ at the end
// as GangScheduling's PreEnqueue does, without importing the plugin.
func TestGangWaitingMessage(t *testing.T) {
	if gangWaitingMessage != gangscheduling.WaitingMessage {
		t.Errorf("gangWaitingMessage = %q, gangscheduling.WaitingMessage = %q: want one message", gangWaitingMessage, gangscheduling.WaitingMessage)
	}
}

package carecorder

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/drasim/drasim/internal/caoracle"
	"github.com/drasim/drasim/sim/snapshot"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/watch"
	cbv1beta1 "k8s.io/autoscaler/cluster-autoscaler/apis/capacitybuffer/autoscaling.x-k8s.io/v1beta1"
	cbfake "k8s.io/autoscaler/cluster-autoscaler/apis/capacitybuffer/client/clientset/versioned/fake"
	cbinformers "k8s.io/autoscaler/cluster-autoscaler/apis/capacitybuffer/client/informers/externalversions"
	prv1 "k8s.io/autoscaler/cluster-autoscaler/apis/provisioningrequest/autoscaling.x-k8s.io/v1"
	provreqfake "k8s.io/autoscaler/cluster-autoscaler/apis/provisioningrequest/client/clientset/versioned/fake"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/cluster-autoscaler/pkg/capacitybuffer"
	cbclient "sigs.k8s.io/cluster-autoscaler/pkg/capacitybuffer/client"
	"sigs.k8s.io/cluster-autoscaler/pkg/capacitybuffer/fakepods"
	cbtranslators "sigs.k8s.io/cluster-autoscaler/pkg/capacitybuffer/translators"
	"sigs.k8s.io/cluster-autoscaler/pkg/core"
	ca_processors "sigs.k8s.io/cluster-autoscaler/pkg/processors"
	cbprocessor "sigs.k8s.io/cluster-autoscaler/pkg/processors/capacitybuffer"
	"sigs.k8s.io/cluster-autoscaler/pkg/processors/pods"
	"sigs.k8s.io/cluster-autoscaler/pkg/test/integration"
)

// Autoscaling are a scenario's autoscaling.x-k8s.io objects, in CA's
// types (drasim's copies have the same JSON), and what they refer to.
type Autoscaling struct {
	PodTemplates []*v1.PodTemplate
	ProvReqs     []*prv1.ProvisioningRequest
	Buffers      []*cbv1beta1.CapacityBuffer
	// Deployments are those a buffer's scalableRef names.
	Deployments []*appsv1.Deployment
}

func autoscalingObjects(snap *snapshot.Snapshot) Autoscaling {
	var a Autoscaling
	for _, t := range snap.PodTemplates {
		t = t.DeepCopy()
		setUID(&t.ObjectMeta, "podtemplate/"+t.Namespace+"/"+t.Name)
		a.PodTemplates = append(a.PodTemplates, t)
	}
	for _, pr := range snap.ProvisioningRequests {
		out := &prv1.ProvisioningRequest{}
		convert(pr, out)
		out.APIVersion, out.Kind = snapshot.ProvisioningRequestAPIVersion, "ProvisioningRequest"
		setUID(&out.ObjectMeta, "provreq/"+out.Namespace+"/"+out.Name)
		a.ProvReqs = append(a.ProvReqs, out)
	}
	scalable := map[string]bool{}
	for _, b := range snap.CapacityBuffers {
		out := &cbv1beta1.CapacityBuffer{}
		convert(b, out)
		out.APIVersion, out.Kind = snapshot.CapacityBufferAPIVersion, "CapacityBuffer"
		setUID(&out.ObjectMeta, "buffer/"+out.Namespace+"/"+out.Name)
		a.Buffers = append(a.Buffers, out)
		if r := b.Spec.ScalableRef; r != nil && r.Kind == "Deployment" {
			scalable[b.Namespace+"/"+r.Name] = true
		}
	}
	for _, d := range snap.Deployments {
		if scalable[d.Namespace+"/"+d.Name] {
			d = d.DeepCopy()
			setUID(&d.ObjectMeta, ownerKey("Deployment", d.Namespace, d.Name))
			a.Deployments = append(a.Deployments, d)
		}
	}
	return a
}

// convert copies an object into another type of the same JSON shape.
func convert(in, out any) {
	data, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		panic(err)
	}
}

// populateAutoscaling creates the PodTemplates, the Deployments buffers
// scale with, and the ProvisioningRequests (in the fake ProvisioningRequest
// clientset CA's builder reads).
func populateAutoscaling(t *testing.T, ctx context.Context, fakes *integration.FakeSet, s *Scenario) {
	for _, pt := range s.Autoscaling.PodTemplates {
		if _, err := fakes.KubeClient.CoreV1().PodTemplates(pt.Namespace).Create(ctx, pt, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range s.Autoscaling.Deployments {
		if _, err := fakes.KubeClient.AppsV1().Deployments(d.Namespace).Create(ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.Autoscaling.ProvReqs) > 0 {
		fakes.PRClient = provReqClientset()
	}
	for _, pr := range s.Autoscaling.ProvReqs {
		// The API server stamps the creation time; CA fails a request a
		// week after it (Expired), so a zero time would fail it at once.
		pr = pr.DeepCopy()
		pr.CreationTimestamp = metav1.NewTime(time.Now())
		if _, err := fakes.PRClient.AutoscalingV1().ProvisioningRequests(pr.Namespace).Create(ctx, pr, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.Autoscaling.Buffers) > 0 {
		// Register the listers the buffer client reads before Build
		// starts the informer factory.
		fakes.InformerFactory.Core().V1().PodTemplates().Informer()
		fakes.InformerFactory.Apps().V1().Deployments().Informer()
		fakes.InformerFactory.Apps().V1().ReplicaSets().Informer()
		fakes.InformerFactory.Apps().V1().StatefulSets().Informer()
		fakes.InformerFactory.Batch().V1().Jobs().Informer()
		fakes.InformerFactory.Core().V1().ReplicationControllers().Informer()
	}
}

// installBuffers does what CA's builder does with
// --capacity-buffer-pod-injection-enabled, on a fake CapacityBuffer
// clientset (the builder only makes a client from a REST config): CA's
// buffer controller translators fill each buffer's status, and CA's
// CapacityBufferPodListProcessor goes first in the pod list processors.
// The processors are a private field of the StaticAutoscaler.
func installBuffers(t *testing.T, ctx context.Context, fakes *integration.FakeSet, sa *core.StaticAutoscaler, s *Scenario) {
	if len(s.Autoscaling.Buffers) == 0 {
		return
	}
	cbClientset := cbfake.NewSimpleClientset()
	for _, b := range s.Autoscaling.Buffers {
		if _, err := cbClientset.AutoscalingV1beta1().CapacityBuffers(b.Namespace).Create(ctx, b, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	factory := cbinformers.NewSharedInformerFactory(cbClientset, 0)
	lister := factory.Autoscaling().V1beta1().CapacityBuffers().Lister()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	inf := fakes.InformerFactory
	client, err := cbclient.NewCapacityBufferClient(cbClientset, fakes.KubeClient, lister,
		inf.Core().V1().PodTemplates().Lister(), inf.Apps().V1().ReplicaSets().Lister(), inf.Apps().V1().StatefulSets().Lister(),
		inf.Batch().V1().Jobs().Lister(), inf.Apps().V1().Deployments().Lister(), inf.Core().V1().ReplicationControllers().Lister(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	inf.Start(ctx.Done())
	inf.WaitForCacheSync(ctx.Done())
	buffers, err := client.ListCapacityBuffers("")
	if err != nil {
		t.Fatal(err)
	}
	var copies []*cbv1beta1.CapacityBuffer
	for _, b := range buffers {
		copies = append(copies, b.DeepCopy())
	}
	resolver := fakepods.NewDefaultingResolver()
	for _, errs := range [][]error{
		cbtranslators.NewPodTemplateBufferTranslator(client, resolver).Translate(copies),
		cbtranslators.NewDefaultScalableObjectsTranslator(client, resolver).Translate(copies),
	} {
		for _, err := range errs {
			t.Fatalf("buffer translation: %v", err)
		}
	}
	for _, b := range copies {
		if _, err := client.UpdateCapacityBuffer(b); err != nil {
			t.Fatal(err)
		}
	}
	// Wait for the informers to see the statuses and managed templates.
	inf.WaitForCacheSync(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	injector := cbprocessor.NewCapacityBufferPodListProcessor(client, []string{capacitybuffer.ActiveProvisioningStrategy}, fakepods.NewRegistry(nil), true)
	f := reflect.ValueOf(sa).Elem().FieldByName("processors")
	procs := *(**ca_processors.AutoscalingProcessors)(unsafe.Pointer(f.UnsafeAddr()))
	procs.PodListProcessor = pods.NewCombinedPodListProcessor([]pods.PodListProcessor{injector, procs.PodListProcessor})
}

// provReqClientset is the harness's fake ProvisioningRequest clientset
// with a type converter that deduces the schema from the objects: the
// generated one has no schema for ProvisioningRequests and refuses to
// create them, and the best-effort-atomic class writes its conditions
// with server-side apply, which the simple clientset does not serve.
// Without the CRD's schema, apply treats status.conditions as one atomic
// list (the API server merges it by type): CA's apply of Provisioned then
// drops the Accepted condition the injector wrote before.
func provReqClientset() *provreqfake.Clientset {
	scheme := runtime.NewScheme()
	if err := provreqfake.AddToScheme(scheme); err != nil {
		panic(err)
	}
	codecs := serializer.NewCodecFactory(scheme)
	o := clienttesting.NewFieldManagedObjectTracker(scheme, codecs.UniversalDecoder(), managedfields.NewDeducedTypeConverter())
	cs := provreqfake.NewSimpleClientset()
	cs.PrependReactor("*", "*", clienttesting.ObjectReaction(o))
	cs.PrependWatchReactor("*", func(action clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if w, ok := action.(clienttesting.WatchActionImpl); ok {
			opts = w.ListOptions
		}
		w, err := o.Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return false, nil, err
		}
		return true, w, nil
	})
	return cs
}

// provReqConditions reads the requests' conditions at the end of the run.
func provReqConditions(t *testing.T, ctx context.Context, fakes *integration.FakeSet, s *Scenario) []caoracle.ProvReq {
	var out []caoracle.ProvReq
	for _, pr := range s.Autoscaling.ProvReqs {
		got, err := fakes.PRClient.AutoscalingV1().ProvisioningRequests(pr.Namespace).Get(ctx, pr.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r := caoracle.ProvReq{Name: pr.Namespace + "/" + pr.Name, Conditions: []caoracle.Condition{}}
		for _, c := range got.Status.Conditions {
			r.Conditions = append(r.Conditions, caoracle.Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason})
		}
		out = append(out, r)
	}
	caoracle.SortProvReqs(out)
	return out
}

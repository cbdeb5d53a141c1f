package main

import (
	"context"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/taskgov/taskgov/internal/kube/kubetest"
)

// TestKubernetesCronJobJobs: a labelled Job that a CronJob controls is a
// task of its own, as Kueue governs it: held at creation by the shipped
// admission policy and placed when admitted. (Only a governed workload's
// Jobs, a JobSet's, are governed through their owner.) Before, such a Job
// ran ungoverned while its labelled pods were gated, so they waited forever.
// Real kube-apiserver, Job controller, kwok nodes.
func TestKubernetesCronJobJobs(t *testing.T) {
	kc, dyn := workloadCluster(t, true) // the real Job controller (and CronJob controller)
	ctx := context.Background()
	kc.CreateNode(t, kubetest.GPUNode("p5-0", "ml.p5.48xlarge", 8, map[string]string{"topology.k8s.aws/network-node-layer-3": "nn-3-a"}, false))
	workloadServer(t, kc, workloadsCluster, 1)

	// A suspended CronJob (its controller makes nothing); the test makes
	// the Job it would make, owned by it.
	job := jobVariant(t, "nightly-29000000", "training-priority", 1, nil)
	suspend := true
	cron := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: job.GetNamespace()},
		Spec: batchv1.CronJobSpec{Schedule: "0 3 * * *", Suspend: &suspend, JobTemplate: batchv1.JobTemplateSpec{
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}}}
	made, err := kc.Client.BatchV1().CronJobs(cron.Namespace).Create(ctx, cron, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	job.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: made.Name, UID: made.UID, Controller: &yes}})
	job = create(t, dyn, job)
	if sus, _, _ := unstructured.NestedBool(job.Object, "spec", "suspend"); !sus {
		t.Fatal("a CronJob's labelled Job was not created suspended")
	}
	for end := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		ps := podsOwnedBy(t, kc, job)
		if len(ps) == 1 && ps[0].Status.Phase == corev1.PodRunning && ps[0].Spec.NodeName == "p5-0" {
			break
		}
		if time.Now().After(end) {
			got := getObj(t, dyn, job)
			sus, _, _ := unstructured.NestedBool(got.Object, "spec", "suspend")
			t.Fatalf("the CronJob's Job did not run on p5-0 within 60 s: suspended %v, status %q, pods:\n%s",
				sus, got.GetAnnotations()["taskgov.io/status"], podsWide(ps))
		}
	}
	if a := getObj(t, dyn, job).GetAnnotations()["taskgov.io/status"]; !strings.HasPrefix(a, "Running") {
		t.Errorf("status annotation %q, want Running", a)
	}
}

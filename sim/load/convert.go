package load

import "fmt"

// exactlyFields are the v1beta1 DeviceRequest fields that v1 moved into
// `exactly`.
var exactlyFields = []string{"deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations", "capacity"}

// convertV1beta1 rewrites a generic resource.k8s.io/v1beta1 object into the
// v1 shape, in place. The differences are structural only: v1beta1 wraps
// device fields in `basic`, and puts the fields of a plain request directly in
// the request where v1 has `exactly`.
func convertV1beta1(kind string, obj map[string]any) error {
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return nil
	}
	switch kind {
	case "ResourceSlice":
		devices, _ := spec["devices"].([]any)
		for i, d := range devices {
			dm, ok := d.(map[string]any)
			if !ok {
				continue
			}
			basic, has := dm["basic"]
			if !has {
				continue
			}
			bm, ok := basic.(map[string]any)
			if !ok && basic != nil {
				return fmt.Errorf("spec.devices[%d].basic: must be an object", i)
			}
			delete(dm, "basic")
			for k, v := range bm {
				dm[k] = v
			}
		}
	case "ResourceClaim":
		return convertClaimSpec(spec)
	case "ResourceClaimTemplate":
		inner, _ := spec["spec"].(map[string]any)
		if inner != nil {
			return convertClaimSpec(inner)
		}
	}
	return nil
}

func convertClaimSpec(spec map[string]any) error {
	devices, _ := spec["devices"].(map[string]any)
	requests, _ := devices["requests"].([]any)
	for _, r := range requests {
		rm, ok := r.(map[string]any)
		if !ok {
			continue
		}
		if _, hasSub := rm["firstAvailable"]; hasSub {
			continue
		}
		exactly := map[string]any{}
		for _, f := range exactlyFields {
			if v, ok := rm[f]; ok {
				exactly[f] = v
				delete(rm, f)
			}
		}
		rm["exactly"] = exactly
	}
	return nil
}
